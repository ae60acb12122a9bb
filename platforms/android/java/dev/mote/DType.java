package dev.mote;

/** Element types of tensors, in the order of Mote's schema (sdk/schema/mote.fbs). */
public enum DType {
  F32(4),
  F16(2),
  I8(1),
  U8(1),
  I32(4),
  I64(8),
  BOOL(1),
  F64(8);

  private final int size;

  DType(int size) {
    this.size = size;
  }

  /** Bytes per element. */
  public int size() {
    return size;
  }
}
