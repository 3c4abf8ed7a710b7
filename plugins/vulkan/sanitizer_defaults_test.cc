// Sanitizer setup for the Vulkan plugin's test binary (compiled to nothing
// outside the AddressSanitizer build).
//
// Mesa's Vulkan drivers keep process-wide state they allocate once and
// reach only through their own globals. The loader unloads a driver when
// the last instance is destroyed; at exit LeakSanitizer then no longer sees
// those globals and reports the state as leaked from "<unknown module>",
// which no suppression can name. Loading the drivers here with
// RTLD_NODELETE keeps them mapped until exit: their globals stay roots of
// the leak scan, so nothing needs suppressing and every leak of Plexa's own
// objects is still reported, with the default fast unwinder.
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>

namespace {

constexpr const char* kDrivers[] = {
    "libvulkan_lvp.so",
    "libvulkan_intel.so",
    "libvulkan_intel_hasvk.so",
    "libvulkan_radeon.so",
};

__attribute__((constructor)) void PinVulkanDrivers() {
  for (const char* driver : kDrivers) {
    // A driver that is not installed is simply not pinned.
    dlopen(driver, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  }
}

}  // namespace

#endif  // __SANITIZE_ADDRESS__
