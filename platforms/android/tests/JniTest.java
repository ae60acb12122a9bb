package dev.mote.tests;

import dev.mote.Backend;
import dev.mote.DType;
import dev.mote.Model;
import dev.mote.MoteException;
import dev.mote.Session;
import dev.mote.Tensor;
import dev.mote.TensorInfo;
import dev.mote.TrainingSession;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Java API on the host JVM, as an app would use it: a zoo model against mote-run's output (the
 * C++ API on the same input), each way of loading a model, the errors an app can cause (bad file,
 * wrong input size, close twice, use after close) as exceptions, four threads with a session each,
 * and a short fine-tuning run. Exit status 0 when every check passes.
 *
 * <p>Usage: JniTest MODEL.mote INPUT.npy EXPECTED.npy WORKDIR
 */
public final class JniTest {
  private static int failures = 0;

  private static void check(boolean ok, String what) {
    System.out.println((ok ? "ok    " : "FAIL  ") + what);
    if (!ok) {
      failures++;
    }
  }

  interface Body {
    void run() throws Exception;
  }

  /** Runs body, which must throw an exception of type cls whose message contains text. */
  private static void expectThrows(Class<? extends Throwable> cls, String text, String what, Body body) {
    try {
      body.run();
      check(false, what + ": no exception");
    } catch (Throwable t) {
      boolean ok = cls.isInstance(t) && t.getMessage() != null && t.getMessage().contains(text);
      check(ok, what + ": " + t.getClass().getSimpleName() + ": " + t.getMessage());
    }
  }

  /** A little-endian f32 .npy file (what mote-run and numpy write). */
  static Tensor readNpy(Path path) throws IOException {
    byte[] bytes = Files.readAllBytes(path);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int headerLength = bytes[6] == 1 ? (b.getShort(8) & 0xffff) : b.getInt(8);
    int dataStart = (bytes[6] == 1 ? 10 : 12) + headerLength;
    String header = new String(bytes, bytes[6] == 1 ? 10 : 12, headerLength, StandardCharsets.US_ASCII);
    if (!header.contains("'<f4'")) {
      throw new IOException(path + ": only <f4 .npy files are read here: " + header);
    }
    String dims = header.substring(header.indexOf("'shape': (") + 10, header.indexOf(")", header.indexOf("'shape'")));
    List<Long> shape = new ArrayList<>();
    for (String d : dims.split(",")) {
      if (!d.trim().isEmpty()) {
        shape.add(Long.parseLong(d.trim()));
      }
    }
    float[] values = new float[(bytes.length - dataStart) / 4];
    b.position(dataStart);
    b.asFloatBuffer().get(values);
    return Tensor.ofFloats(shape.stream().mapToLong(Long::longValue).toArray(), values);
  }

  static double maxAbsDiff(float[] a, float[] b) {
    if (a.length != b.length) {
      return Double.POSITIVE_INFINITY;
    }
    double worst = 0;
    for (int i = 0; i < a.length; i++) {
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
    }
    return worst;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: JniTest MODEL.mote INPUT.npy EXPECTED.npy WORKDIR");
      System.exit(2);
    }
    Path modelPath = Path.of(args[0]);
    Tensor input = readNpy(Path.of(args[1]));
    float[] expected = readNpy(Path.of(args[2])).toFloats();
    Path work = Path.of(args[3]);
    System.out.println("Mote " + dev.mote.Mote.version());

    // The zoo model on the CPU against the C++ API's result (mote-run).
    try (Model model = Model.fromFile(modelPath.toString());
        Session session = Session.create(model, new Session.Options().threads(1))) {
      TensorInfo[] in = model.inputs();
      check(in.length == 1 && Arrays.equals(in[0].shape, input.shape), "inputs: " + Arrays.toString(in));
      float[] got = session.run(input)[0].toFloats();
      check(maxAbsDiff(got, expected) <= 1e-5, "CPU output matches mote-run's, max |diff| " + maxAbsDiff(got, expected));
    }
    // ... and on Vulkan (lavapipe here; the CPU where there is no Vulkan).
    try (Model model = Model.fromFile(modelPath.toString());
        Session session = Session.create(model, new Session.Options().backend(Backend.VULKAN))) {
      float[] got = session.run(input)[0].toFloats();
      check(maxAbsDiff(got, expected) <= 1e-4,
          "Vulkan (" + session.backendInUse() + ") output matches, max |diff| " + maxAbsDiff(got, expected));
    }
    // ... with f16 storage and f16 products (a CPU without Vulkan ignores both), within 3e-2 of
    // the output's largest magnitude as the C++ zoo tests ask of f16.
    try (Model model = Model.fromFile(modelPath.toString());
         Session session =
             Session.create(model, new Session.Options().backend(Backend.VULKAN).fp16(true).fp16Arithmetic(true))) {
      float[] got = session.run(input)[0].toFloats();
      double largest = 0;
      for (float v : expected) {
        largest = Math.max(largest, Math.abs(v));
      }
      check(maxAbsDiff(got, expected) <= 3e-2 * largest,
          "Vulkan f16 arithmetic output within 3e-2, max |diff| " + maxAbsDiff(got, expected) + " of " + largest);
    }

    // The other ways in: a direct ByteBuffer and a descriptor with offset and length, as an app
    // reads an uncompressed asset from its APK (here: the model after 100 bytes of padding).
    byte[] file = Files.readAllBytes(modelPath);
    ByteBuffer direct = ByteBuffer.allocateDirect(file.length);
    direct.put(file).flip();
    try (Model model = Model.fromBuffer(direct); Session session = Session.create(model)) {
      check(maxAbsDiff(session.run(input)[0].toFloats(), expected) <= 1e-5, "Model.fromBuffer runs");
    }
    Path padded = work.resolve("padded.bin");
    byte[] withPadding = new byte[file.length + 100];
    System.arraycopy(file, 0, withPadding, 100, file.length);
    Files.write(padded, withPadding);
    try (FileInputStream stream = new FileInputStream(padded.toFile());
        Model model = Model.fromFileDescriptor(stream.getFD(), 100, file.length);
        Session session = Session.create(model)) {
      check(maxAbsDiff(session.run(input)[0].toFloats(), expected) <= 1e-5, "Model.fromFileDescriptor runs");
    }

    // Errors an app can cause: exceptions with Mote's message, never a crash.
    Path garbage = work.resolve("garbage.mote");
    Files.write(garbage, "this is not a model".getBytes(StandardCharsets.US_ASCII));
    expectThrows(MoteException.class, "garbage.mote", "a bad model file", () -> Model.fromFile(garbage.toString()));
    expectThrows(MoteException.class, "missing.mote", "a missing file",
        () -> Model.fromFile(work.resolve("missing.mote").toString()));
    try (RandomAccessFile raf = new RandomAccessFile(padded.toFile(), "r")) {
      expectThrows(MoteException.class, "cannot read", "a descriptor range past the end",
          () -> Model.fromFileDescriptor(raf.getFD(), 100, file.length + 1000));
    }
    Model model = Model.fromFile(modelPath.toString());
    Session session = Session.create(model);
    expectThrows(IllegalArgumentException.class, "needs a direct buffer of 3136 bytes, got 100 bytes",
        "a buffer too small for its shape",
        () -> session.run(Tensor.of(DType.F32, input.shape, ByteBuffer.allocateDirect(100))));
    expectThrows(MoteException.class, "does not match the declared 1x1x28x28", "a wrong input shape",
        () -> session.run(Tensor.ofFloats(new long[] {1, 3}, new float[3])));
    expectThrows(MoteException.class, "", "a wrong input count", () -> session.run(input, input));
    expectThrows(MoteException.class, "no-such-optimizer", "an unknown optimizer name",
        () -> TrainingSession.create(model, trainingOptions("softmax_cross_entropy", "no-such-optimizer")));
    session.close();
    session.close();
    check(session.isClosed(), "closing twice is harmless");
    expectThrows(IllegalStateException.class, "Session is closed", "use after close", () -> session.run(input));
    model.close();
    expectThrows(IllegalStateException.class, "Model is closed", "a closed model", () -> Session.create(model));

    // Four threads, a session each of one shared model, 25 runs each: every output equals the
    // single-threaded one.
    try (Model shared = Model.fromFile(modelPath.toString())) {
      AtomicReference<String> problem = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        final Backend backend = t % 2 == 0 ? Backend.CPU : Backend.VULKAN;
        threads.add(new Thread(() -> {
          try (Session s = Session.create(shared, new Session.Options().backend(backend).threads(1))) {
            for (int i = 0; i < 25; i++) {
              double diff = maxAbsDiff(s.run(input)[0].toFloats(), expected);
              if (diff > 1e-4) {
                problem.set(backend + " run " + i + " differs by " + diff);
              }
            }
          } catch (Throwable e) {
            problem.set(e.toString());
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      check(problem.get() == null, "4 threads x 25 runs, CPU and Vulkan sessions of one model"
          + (problem.get() == null ? "" : ": " + problem.get()));
    }

    // A short fine-tuning run on one batch: the loss falls, and the saved model reloads with the
    // trained outputs.
    try (Model base = Model.fromFile(modelPath.toString());
        TrainingSession trainer = TrainingSession.create(base, trainingOptions("softmax_cross_entropy", "adamw"))) {
      Tensor labels = Tensor.ofLongs(new long[] {input.shape[0]}, new long[(int) input.shape[0]]);
      float first = trainer.trainStep(new Tensor[] {input}, labels);
      float last = first;
      for (int i = 0; i < 9; i++) {
        last = trainer.trainStep(new Tensor[] {input}, labels);
      }
      check(last < first * 0.9f, "10 AdamW steps: loss " + first + " -> " + last + " (step " + trainer.step() + ")");
      float[] trained = trainer.evaluate(input)[0].toFloats();
      String saved = work.resolve("tuned.mote").toString();
      trainer.save(saved);
      try (Model tuned = Model.fromFile(saved); Session s = Session.create(tuned)) {
        check(maxAbsDiff(s.run(input)[0].toFloats(), trained) <= 1e-5, "the saved model reloads with the trained outputs");
      }
      expectThrows(IllegalArgumentException.class, "labels is null", "missing labels",
          () -> trainer.trainStep(new Tensor[] {input}, null));
    }

    System.out.println(failures == 0 ? "all checks passed" : failures + " check(s) failed");
    System.exit(failures == 0 ? 0 : 1);
  }

  private static TrainingSession.Options trainingOptions(String loss, String optimizer) {
    TrainingSession.Options o = new TrainingSession.Options();
    o.loss = loss;
    o.optimizer = optimizer;
    o.learningRate = 1e-2f;
    o.threads = 1;
    return o;
  }
}
