/* Compiles Debian's volk (libvulkan-volk-dev ships it as source) into Mote. */
#define VOLK_IMPLEMENTATION
#include <volk.h>
