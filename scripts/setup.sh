#!/usr/bin/env bash
# Installs the system packages the build and tests need, when missing (Debian):
# a C toolchain, the Vulkan loader, Mesa's lavapipe (a CPU Vulkan device), the Khronos
# validation layer and spirv-tools (spirv-val checks the compiled shaders).
set -euo pipefail
need=()
command -v cc >/dev/null 2>&1 || need+=(build-essential)
[ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ] || ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 || need+=(libvulkan1)
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
ls /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json >/dev/null 2>&1 || need+=(vulkan-validationlayers)
command -v spirv-val >/dev/null 2>&1 || need+=(spirv-tools)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
