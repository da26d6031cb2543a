// Catch2's main for every test executable. SystemC's banner is silenced, and sc_main is provided for the
// SystemC library (the tests themselves call sc_start from their test cases).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <systemc>

#include <cstdlib>

int sc_main(int, char*[]) {
    return 0;
}

int main(int argc, char* argv[]) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return Catch::Session().run(argc, argv);
}
