/* A shared library that is not a Plexa plugin: it exports a function but
 * not PLX_GetApi. The loader must refuse it, name PLX_GetApi, and unload
 * it again. */
__attribute__((visibility("default"))) int plexa_test_not_a_plugin(void) {
  return 42;
}
