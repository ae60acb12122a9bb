package dev.mote;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A tensor's type, shape and data, in a direct ByteBuffer of native byte order: the native
 * library reads inputs from it and writes outputs into it without another copy.
 */
public final class Tensor {
  public final DType dtype;
  public final long[] shape;
  public final ByteBuffer data;

  /**
   * Wraps a direct buffer the caller filled. Its size is checked against dtype and shape when a
   * session reads it.
   */
  public static Tensor of(DType dtype, long[] shape, ByteBuffer data) {
    if (!data.isDirect()) {
      throw new IllegalArgumentException("Tensor data must be a direct ByteBuffer (ByteBuffer.allocateDirect)");
    }
    return new Tensor(dtype, shape.clone(), data.order(ByteOrder.nativeOrder()));
  }

  /** A new f32 tensor holding a copy of {@code values}. */
  public static Tensor ofFloats(long[] shape, float[] values) {
    Tensor t = allocateFor(DType.F32, shape, values.length);
    t.data.asFloatBuffer().put(values);
    return t;
  }

  /** A new i64 tensor holding a copy of {@code values} (class labels for training). */
  public static Tensor ofLongs(long[] shape, long[] values) {
    Tensor t = allocateFor(DType.I64, shape, values.length);
    t.data.asLongBuffer().put(values);
    return t;
  }

  private static Tensor allocateFor(DType dtype, long[] shape, int count) {
    if (elementCount(shape) != count) {
      throw new IllegalArgumentException(
          dtype + " " + Arrays.toString(shape) + " holds " + elementCount(shape) + " elements, got " + count);
    }
    return allocate(dtype, shape);
  }

  /** A zero-filled tensor; the native library allocates outputs this way. */
  public static Tensor allocate(DType dtype, long[] shape) {
    long count = elementCount(shape);
    if (count < 0 || count * dtype.size() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("cannot allocate " + dtype + " " + Arrays.toString(shape));
    }
    ByteBuffer buffer = ByteBuffer.allocateDirect((int) (count * dtype.size())).order(ByteOrder.nativeOrder());
    return new Tensor(dtype, shape.clone(), buffer);
  }

  /** Called from JNI with the schema's dtype number. */
  static Tensor allocate(int dtype, long[] shape) {
    return allocate(DType.values()[dtype], shape);
  }

  /** The elements of an f32 tensor. */
  public float[] toFloats() {
    if (dtype != DType.F32) {
      throw new IllegalStateException("toFloats() on a " + dtype + " tensor");
    }
    float[] values = new float[data.capacity() / 4];
    data.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer().get(values);
    return values;
  }

  public long elementCount() {
    return elementCount(shape);
  }

  private static long elementCount(long[] shape) {
    long n = 1;
    for (long d : shape) {
      if (d < 0) {
        return -1;
      }
      n *= d;
    }
    return n;
  }

  private Tensor(DType dtype, long[] shape, ByteBuffer data) {
    this.dtype = dtype;
    this.shape = shape;
    this.data = data;
  }

  @Override
  public String toString() {
    return dtype + " " + Arrays.toString(shape);
  }
}
