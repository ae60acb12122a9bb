package dev.mote;

/** Loads the native library (libmote_jni.so) once; every class of the API calls this first. */
public final class Mote {
  private static boolean loaded;

  private Mote() {}

  /**
   * Loads libmote_jni: from the directory in the system property {@code dev.mote.library.path}
   * when set (host tests), else through System.loadLibrary (an app's jniLibs, java.library.path).
   */
  public static synchronized void load() {
    if (loaded) {
      return;
    }
    String dir = System.getProperty("dev.mote.library.path");
    if (dir != null && !dir.isEmpty()) {
      System.load(dir + "/" + System.mapLibraryName("mote_jni"));
    } else {
      System.loadLibrary("mote_jni");
    }
    loaded = true;
  }

  /** Mote's version, "MAJOR.MINOR.PATCH". */
  public static String version() {
    load();
    return nativeVersion();
  }

  private static native String nativeVersion();
}
