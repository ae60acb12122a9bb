package dev.mote;

import java.io.FileDescriptor;
import java.nio.ByteBuffer;

/**
 * A loaded, verified .mote model. Immutable once loaded: any number of sessions, on any threads,
 * may share it, and closing it while they run is safe (each session keeps what it needs).
 */
public final class Model extends NativeHandle {
  static {
    Mote.load();
  }

  /** Memory-maps and verifies the file at {@code path}. */
  public static Model fromFile(String path) {
    return new Model(nativeLoadFile(path));
  }

  /**
   * A model from bytes in a direct ByteBuffer (downloaded, decrypted, ...). The bytes are copied
   * into aligned memory, so the buffer may be reused afterwards.
   */
  public static Model fromBuffer(ByteBuffer bytes) {
    if (!bytes.isDirect()) {
      throw new IllegalArgumentException("Model.fromBuffer needs a direct ByteBuffer");
    }
    return new Model(nativeLoadBuffer(bytes, bytes.position(), bytes.remaining()));
  }

  /**
   * A model stored at {@code offset}, {@code length} bytes long, in an open file: how an app reads
   * an uncompressed model from its APK (AssetFileDescriptor's getFileDescriptor(),
   * getStartOffset() and getLength()). The descriptor stays the caller's.
   */
  public static Model fromFileDescriptor(FileDescriptor fd, long offset, long length) {
    return new Model(nativeLoadFd(fd, offset, length));
  }

  public synchronized TensorInfo[] inputs() {
    return nativeDescribe(handle(), true);
  }

  public synchronized TensorInfo[] outputs() {
    return nativeDescribe(handle(), false);
  }

  /** For Session and TrainingSession: the native model, kept alive by them. */
  synchronized long share() {
    return nativeShare(handle());
  }

  private Model(long handle) {
    super(handle, "Model");
  }

  @Override
  void destroy(long handle) {
    nativeRelease(handle);
  }

  private static native long nativeLoadFile(String path);

  private static native long nativeLoadBuffer(ByteBuffer bytes, int position, int length);

  private static native long nativeLoadFd(FileDescriptor fd, long offset, long length);

  private static native TensorInfo[] nativeDescribe(long model, boolean inputs);

  static native long nativeShare(long model);

  static native void nativeRelease(long model);
}
