// gpulab's PyTorch operators, declared once (TORCH_LIBRARY), and the module `import` needs.
//
// The operators are registered with the dispatcher, not bound with pybind11: torch.ops.gpulab.*
// then works with torch.compile, torch.library.opcheck and autograd registered from Python
// (gpulab_torch/ops.py holds the fake implementations and the backward). The CUDA
// implementations are in ops_cuda.cu.
#include <Python.h>
#include <torch/library.h>

extern "C" {
// `import gpulab_torch._C` (the pip-installed way) only needs the module to exist: loading the
// library runs the registrations below. load() from the sources skips this and loads the
// library with torch.ops.load_library instead.
PyObject* PyInit__C(void) {
  static struct PyModuleDef module_def = {
      PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr, nullptr, nullptr, nullptr, nullptr};
  return PyModule_Create(&module_def);
}
}

TORCH_LIBRARY(gpulab, m) {
  // The notes' add2: c = a + b (float32, same shape).
  m.def("add2(Tensor a, Tensor b) -> Tensor");
  // The notes' fused ReLU + scale: max(x, 0) * alpha in one pass; its backward.
  m.def("relu_scale(Tensor x, float alpha) -> Tensor");
  m.def("relu_scale_backward(Tensor grad_y, Tensor x, float alpha) -> Tensor");
  // ||a - b|| over all elements with the reduce kernel (gpulab twonorm --kernel reduce); a
  // 0-dimensional float64 tensor, the precision of the kernel's final sum.
  m.def("two_norm(Tensor a, Tensor b) -> Tensor");
  // The notes' naive fused Linear + bias + GELU (tanh), for the bench.
  m.def("linear_gelu(Tensor x, Tensor weight, Tensor bias) -> Tensor");
}
