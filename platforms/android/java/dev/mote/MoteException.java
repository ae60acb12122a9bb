package dev.mote;

/**
 * A Mote error: every failing call of the native library throws one, carrying Mote's own message
 * (which names the file, op and tensor involved) and its status code.
 */
public class MoteException extends RuntimeException {
  private final String code;

  public MoteException(String code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  /** Mote's status code: "invalid argument", "invalid model", "not found", "unsupported", ... */
  public String code() {
    return code;
  }
}
