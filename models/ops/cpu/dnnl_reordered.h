#pragma once
// A oneDNN primitive's operand in two layouts: the tensor's own and the one the primitive chose
// (oneDNN's jit convolution kernels want blocked layouts), with the reorders between them made
// once with the primitive rather than per call. The copy in the chosen layout lives in a buffer
// the caller holds (conv3d.cpp's, for conv3d and conv_transpose3d alike).
#include <dnnl.hpp>
#include <string>

namespace sb::cpu {

// Whether oneDNN picked one of its reference kernels for a primitive (impl_info_str "ref:any",
// or a deconvolution over one, "conv:ref:any"): the bf16 convolutions fall back to fp32's jit
// kernels rather than run there.
inline bool reference_kernel(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).find("ref") != std::string::npos;
}

struct ReorderedOperand {
  dnnl::memory::desc chosen, user;
  dnnl::reorder to_chosen, to_user;

  ReorderedOperand() = default;
  ReorderedOperand(const dnnl::memory::desc& chosen_layout, const dnnl::memory::desc& user_layout,
                   const dnnl::engine& e)
      : chosen(chosen_layout), user(user_layout) {
    if (!reordered()) return;
    to_chosen = dnnl::reorder(dnnl::reorder::primitive_desc(e, user, e, chosen));
    to_user = dnnl::reorder(dnnl::reorder::primitive_desc(e, chosen, e, user));
  }
  bool reordered() const { return chosen != user; }

  // An input as the primitive reads it: the tensor at p itself, or its copy at `copy`.
  dnnl::memory in(const dnnl::engine& e, dnnl::stream& s, const float* p, void* copy) {
    dnnl::memory mine(user, e, const_cast<float*>(p));
    if (!reordered()) return mine;
    dnnl::memory work(chosen, e, copy);
    to_chosen.execute(s, mine, work);
    return work;
  }
  // An output: where the primitive writes (the tensor at p, or `copy`), then out() reorders the
  // copy into the tensor.
  dnnl::memory work(const dnnl::engine& e, float* p, void* copy) const {
    return reordered() ? dnnl::memory(chosen, e, copy) : dnnl::memory(user, e, p);
  }
  void out(const dnnl::engine& e, dnnl::stream& s, dnnl::memory work, float* p) {
    if (!reordered()) return;
    dnnl::memory mine(user, e, p);
    to_user.execute(s, work, mine);
  }
};

}  // namespace sb::cpu
