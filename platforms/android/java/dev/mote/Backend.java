package dev.mote;

/** Where a session runs; VULKAN and AUTO fall back to the CPU on a device without Vulkan. */
public enum Backend {
  CPU,
  VULKAN,
  AUTO,
  REFERENCE
}
