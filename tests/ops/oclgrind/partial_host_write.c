// Oclgrind's --uninitialized after a host write into part of a buffer (docs/testing.md, the
// suppression in scripts/oclgrind-suppressions.txt). Oclgrind 21.10's hostMemoryStore replaces
// the buffer's whole shadow with a fresh one the size of the write (ShadowMemory::allocate);
// ShadowMemory::store drops, and load reports as uninitialized, every byte past that size; and
// nothing resets a shadow when its buffer is released, so the next buffer given the same index
// inherits it. Three kernels copy 8 floats, each after a different history, and each copy's
// reports name its kernel in Oclgrind's log:
//   copy:            a kernel fills x, the host writes x[4] alone (clEnqueueWriteBuffer at an
//                    offset, as a write through a sub-buffer is): all 8 loads are reported,
//                    although every element is initialized (y = 1 1 1 1 2 1 1 1);
//   copy_refilled:   then a kernel fills all of x again: the 7 loads past the host write's
//                    4 bytes are still reported (the fill's stores there were dropped). A
//                    buffer that took a partial host write stays so for its life, in a pool too;
//   copy_new_buffer: x is released and z created (Oclgrind gives it x's index) and filled
//                    whole by a kernel: the same 7 loads are reported, so releasing a buffer
//                    does not clear it either.
// Exit 0 when every y is right; the reports go to Oclgrind's log.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char* kSource =
    "__kernel void fill(__global float* x) { x[get_global_id(0)] = 1.0f; }\n"
    "__kernel void copy(__global const float* x, __global float* y) {\n"
    "  y[get_global_id(0)] = x[get_global_id(0)];\n"
    "}\n"
    "__kernel void copy_refilled(__global const float* x, __global float* y) {\n"
    "  y[get_global_id(0)] = x[get_global_id(0)];\n"
    "}\n"
    "__kernel void copy_new_buffer(__global const float* x, __global float* y) {\n"
    "  y[get_global_id(0)] = x[get_global_id(0)];\n"
    "}\n";

#define CHECK(call)                                            \
  do {                                                         \
    cl_int status_ = (call);                                   \
    if (status_ != CL_SUCCESS) {                               \
      fprintf(stderr, "%s failed: %d\n", #call, (int)status_); \
      return 2;                                                \
    }                                                          \
  } while (0)

enum { kN = 8 };

// Runs `kernel` on x into y and reads y; 1 when y[i] is `want` everywhere but want4 at 4.
static int run_copy(cl_command_queue queue, cl_kernel kernel, cl_mem x, cl_mem y, float want4,
                    int* right) {
  const size_t n = kN;
  float out[kN];
  CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &x));
  CHECK(clSetKernelArg(kernel, 1, sizeof(cl_mem), &y));
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &n, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, y, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
  for (size_t i = 0; i < n; ++i) {
    printf("%g ", out[i]);
    *right &= out[i] == (i == 4 ? want4 : 1.0f);
  }
  printf("\n");
  return 0;
}

static int fill(cl_command_queue queue, cl_kernel kernel, cl_mem x) {
  const size_t n = kN;
  CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &x));
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &n, NULL, 0, NULL, NULL));
  return 0;
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
  cl_kernel fill_kernel = clCreateKernel(program, "fill", &err);
  CHECK(err);
  const char* names[3] = {"copy", "copy_refilled", "copy_new_buffer"};
  cl_kernel copies[3];
  for (int k = 0; k < 3; ++k) {
    copies[k] = clCreateKernel(program, names[k], &err);
    CHECK(err);
  }
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_WRITE, kN * sizeof(float), NULL, &err);
  CHECK(err);
  cl_mem y = clCreateBuffer(context, CL_MEM_READ_WRITE, kN * sizeof(float), NULL, &err);
  CHECK(err);

  int right = 1;
  if (fill(queue, fill_kernel, x)) return 2;
  const float two = 2.0f;
  CHECK(clEnqueueWriteBuffer(queue, x, CL_TRUE, 4 * sizeof(float), sizeof(float), &two, 0, NULL,
                             NULL));
  if (run_copy(queue, copies[0], x, y, 2.0f, &right)) return 2;
  if (fill(queue, fill_kernel, x) || run_copy(queue, copies[1], x, y, 1.0f, &right)) return 2;

  CHECK(clReleaseMemObject(x));
  cl_mem z = clCreateBuffer(context, CL_MEM_READ_WRITE, kN * sizeof(float), NULL, &err);
  CHECK(err);
  if (fill(queue, fill_kernel, z) || run_copy(queue, copies[2], z, y, 1.0f, &right)) return 2;

  clReleaseMemObject(z);
  clReleaseMemObject(y);
  for (int k = 0; k < 3; ++k) clReleaseKernel(copies[k]);
  clReleaseKernel(fill_kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return right ? 0 : 1;
}
