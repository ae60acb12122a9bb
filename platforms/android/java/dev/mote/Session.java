package dev.mote;

import java.util.Locale;

/**
 * Runs a model. One session serves one caller at a time (calls are serialised); for parallel
 * inference give each thread its own session of the same Model.
 */
public final class Session extends NativeHandle {
  static {
    Mote.load();
  }

  /** How a session runs. */
  public static final class Options {
    public Backend backend = Backend.CPU;
    /** CPU threads; 0 = one per core. */
    public int threads = 0;
    /** f16 storage on the GPU: half the memory traffic, about 1e-3 relative error. */
    public boolean fp16 = false;
    /**
     * With fp16: convolutions and matrix products also multiply in f16 (sums over the depth stay
     * f32), on GPUs with shaderFloat16; more error than f16 storage alone (docs/vulkan.md).
     */
    public boolean fp16Arithmetic = false;

    public Options backend(Backend b) {
      backend = b;
      return this;
    }

    public Options threads(int n) {
      threads = n;
      return this;
    }

    public Options fp16(boolean on) {
      fp16 = on;
      return this;
    }

    public Options fp16Arithmetic(boolean on) {
      fp16Arithmetic = on;
      return this;
    }
  }

  public static Session create(Model model, Options options) {
    long shared = model.share();
    try {
      String backend = options.backend.name().toLowerCase(Locale.ROOT);
      return new Session(nativeCreate(shared, backend, options.threads, options.fp16, options.fp16Arithmetic));
    } finally {
      Model.nativeRelease(shared);
    }
  }

  public static Session create(Model model) {
    return create(model, new Options());
  }

  /** Runs with inputs in the model's input order; outputs come in the model's output order. */
  public synchronized Tensor[] run(Tensor... inputs) {
    return nativeRun(handle(), inputs);
  }

  /** Convenience for a model with one f32 input and output. */
  public synchronized float[] run(long[] shape, float[] input) {
    return nativeRun(handle(), new Tensor[] {Tensor.ofFloats(shape, input)})[0].toFloats();
  }

  /** The backend the session's plan runs on ("cpu", "vulkan"), after fallbacks; valid after a run. */
  public synchronized String backendInUse() {
    return nativeBackend(handle());
  }

  private Session(long handle) {
    super(handle, "Session");
  }

  @Override
  void destroy(long handle) {
    nativeDestroy(handle);
  }

  private static native long nativeCreate(
      long model, String backend, int threads, boolean fp16, boolean fp16Arithmetic);

  private static native Tensor[] nativeRun(long session, Tensor[] inputs);

  private static native String nativeBackend(long session);

  private static native void nativeDestroy(long session);
}
