package dev.mote;

import java.util.Arrays;

/** A model input or output as the model declares it; -1 marks a dynamic dimension. */
public final class TensorInfo {
  public final String name;
  public final DType dtype;
  public final long[] shape;

  TensorInfo(String name, int dtype, long[] shape) {
    this.name = name;
    this.dtype = DType.values()[dtype];
    this.shape = shape;
  }

  @Override
  public String toString() {
    return name + " " + dtype + " " + Arrays.toString(shape);
  }
}
