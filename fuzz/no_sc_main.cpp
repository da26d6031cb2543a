// libsystemc.so refers to the program's sc_main; a harness has libFuzzer's main instead and never
// elaborates a design, so this one is never called.
extern "C" int sc_main(int, char**) { // as SystemC declares it
    return 1;
}
