// Catch2 2.x needs a translation unit that defines main; Catch2 3 links Catch2WithMain instead.
#ifndef BLAUDE_CATCH3
#define CATCH_CONFIG_MAIN
#include "catch.hpp"
#endif
