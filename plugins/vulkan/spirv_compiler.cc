#include "plugins/vulkan/spirv_compiler.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <mutex>

#include "absl/strings/str_cat.h"

namespace plexa::vulkan {

absl::StatusOr<std::vector<uint32_t>> CompileGlslToSpirv(
    const std::string& source, const std::string& name) {
  // InitializeProcess is process-wide and reference-counted; the plugin
  // initializes it once and never finalizes (other users may share it).
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
  glslang::TShader shader(EShLangCompute);
  const char* text = source.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute,
                     glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  shader.setEntryPoint("main");
  const EShMessages messages =
      static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 460, false, messages)) {
    return absl::InternalError(
        absl::StrCat("glslang could not compile the shader for ", name, ": ",
                     shader.getInfoLog(), "\n", source));
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    return absl::InternalError(absl::StrCat("glslang could not link ", name,
                                            ": ", program.getInfoLog()));
  }
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;
  options.validate = false;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv,
                        &options);
  if (spirv.empty()) {
    return absl::InternalError(
        absl::StrCat("glslang produced no SPIR-V for ", name));
  }
  return spirv;
}

}  // namespace plexa::vulkan
