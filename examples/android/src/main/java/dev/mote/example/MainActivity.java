package dev.mote.example;

import android.app.Activity;
import android.content.res.AssetFileDescriptor;
import android.os.Bundle;
import android.widget.TextView;
import dev.mote.Backend;
import dev.mote.Model;
import dev.mote.Session;
import dev.mote.Tensor;
import dev.mote.TensorInfo;
import java.util.Arrays;

/**
 * Loads assets/model.mote in place (no copy out of the APK), runs it on the GPU through Vulkan
 * (the CPU where the device has none) on a background thread, and shows the output and latency.
 */
public class MainActivity extends Activity {
  @Override
  protected void onCreate(Bundle state) {
    super.onCreate(state);
    setContentView(R.layout.activity_main);
    TextView view = findViewById(R.id.result);
    // Inference off the UI thread: a first run compiles GPU pipelines.
    new Thread(() -> {
      String text = runModel();
      runOnUiThread(() -> view.setText(text));
    }).start();
  }

  private String runModel() {
    try (AssetFileDescriptor asset = getAssets().openFd("model.mote");
        Model model = Model.fromFileDescriptor(asset.getFileDescriptor(), asset.getStartOffset(), asset.getLength());
        Session session = Session.create(model, new Session.Options().backend(Backend.AUTO))) {
      TensorInfo in = model.inputs()[0];
      long[] shape = in.shape.clone();
      for (int i = 0; i < shape.length; i++) {
        shape[i] = Math.max(shape[i], 1);  // a dynamic dimension runs at 1
      }
      Tensor input = Tensor.allocate(in.dtype, shape);
      long first = System.nanoTime();
      Tensor[] out = session.run(input);
      long firstMs = (System.nanoTime() - first) / 1_000_000;
      long start = System.nanoTime();
      int runs = 20;
      for (int i = 0; i < runs; i++) {
        session.run(input);
      }
      double ms = (System.nanoTime() - start) / 1e6 / runs;
      float[] values = out[0].toFloats();
      return "Mote " + dev.mote.Mote.version() + " on " + session.backendInUse() + "\n"
          + "input " + in + "\n"
          + "output " + out[0] + ": " + Arrays.toString(Arrays.copyOf(values, Math.min(values.length, 10))) + "\n"
          + String.format("first run %d ms, then %.2f ms per run", firstMs, ms);
    } catch (Exception e) {
      return "Mote failed: " + e.getMessage();
    }
  }
}
