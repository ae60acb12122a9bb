package dev.mote;

import java.util.Locale;

/** Fine-tunes a model on the device; calls are serialised like Session's. */
public final class TrainingSession extends NativeHandle {
  static {
    Mote.load();
  }

  /** Training options by the names the C API and the tools use. */
  public static final class Options {
    /** "softmax_cross_entropy", "mse" or "bce_with_logits". */
    public String loss = "softmax_cross_entropy";
    /** "sgd" or "adamw". */
    public String optimizer = "adamw";
    public float learningRate = 1e-3f;
    /** Train only the parameters read after this tensor (the head); empty: all. */
    public String trainableAfter = "";
    public Backend backend = Backend.CPU;
    public int threads = 0;
  }

  public static TrainingSession create(Model model, Options options) {
    long shared = model.share();
    try {
      String backend = options.backend.name().toLowerCase(Locale.ROOT);
      return new TrainingSession(nativeCreate(shared, options.loss, options.optimizer, options.learningRate,
          options.trainableAfter, backend, options.threads));
    } finally {
      Model.nativeRelease(shared);
    }
  }

  /** One optimisation step on a batch; returns the batch's loss before the update. */
  public synchronized float trainStep(Tensor[] inputs, Tensor labels) {
    return nativeTrainStep(handle(), inputs, labels);
  }

  /** The model's outputs with the current parameters. */
  public synchronized Tensor[] evaluate(Tensor... inputs) {
    return nativeEvaluate(handle(), inputs);
  }

  /** Writes the trained model to {@code path} and the optimizer state beside it. */
  public synchronized void save(String path) {
    nativeSave(handle(), path);
  }

  public synchronized long step() {
    return nativeStep(handle());
  }

  private TrainingSession(long handle) {
    super(handle, "TrainingSession");
  }

  @Override
  void destroy(long handle) {
    nativeDestroy(handle);
  }

  private static native long nativeCreate(long model, String loss, String optimizer, float learningRate,
      String trainableAfter, String backend, int threads);

  private static native float nativeTrainStep(long session, Tensor[] inputs, Tensor labels);

  private static native Tensor[] nativeEvaluate(long session, Tensor[] inputs);

  private static native void nativeSave(long session, String path);

  private static native long nativeStep(long session);

  private static native void nativeDestroy(long session);
}
