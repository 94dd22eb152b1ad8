// Catch2 2.x (Debian 12) and 3.x (Ubuntu 24.04, Fedora) behind one include.
#pragma once
#ifdef BLAUDE_CATCH3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
