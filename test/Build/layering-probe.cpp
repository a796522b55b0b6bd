// A probe for the layering-build test (test/Build/CMakeLists.txt): includes
// the one header ARECIPE_PROBE_HEADER names, in a target that links a chosen
// set of layers. Whether it compiles says whether the build lets that target
// see that header.
#include ARECIPE_PROBE_HEADER

int arecipeLayeringProbe() { return 0; }
