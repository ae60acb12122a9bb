package dev.mote;

/**
 * A native object owned by a Java one. close() frees it once (closing again does nothing); every
 * use after close() throws IllegalStateException instead of touching freed memory, and calls on
 * one object are serialised, so a handle shared between threads cannot be freed mid-call.
 */
abstract class NativeHandle implements AutoCloseable {
  private long handle;
  private final String what;

  NativeHandle(long handle, String what) {
    this.handle = handle;
    this.what = what;
  }

  /** The live handle; callers hold this object's lock. */
  final long handle() {
    if (handle == 0) {
      throw new IllegalStateException(what + " is closed");
    }
    return handle;
  }

  public final synchronized boolean isClosed() {
    return handle == 0;
  }

  @Override
  public final synchronized void close() {
    if (handle != 0) {
      destroy(handle);
      handle = 0;
    }
  }

  abstract void destroy(long handle);
}
