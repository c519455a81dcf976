/* A source file of some layer that includes PROBE_HEADER: built by
 * tests/tools/layering.sh with exactly that layer's include paths, to show
 * that a header of a layer it may not use cannot be found. */
#include PROBE_HEADER

int layer_probe;
