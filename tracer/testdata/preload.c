/* A shared object that does nothing: what an agent could build and load
 * with LD_PRELOAD or dlopen. */
int authbench_preloaded(void) { return 42; }
