/* Compiled and linked with `pkg-config --cflags --libs --static mote`. */
#include <stdio.h>

#include "mote/mote.h"

int main(void) {
  printf("mote %s via pkg-config\n", mote_version());
  return 0;
}
