// libsystemc defines main() and needs an sc_main; Catch2's main runs the tests instead.
extern "C" int sc_main(int, char*[]) { return 0; }
