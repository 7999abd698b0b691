// Oclgrind's --uninitialized after a host write into part of a buffer (docs/testing.md, the
// suppression in scripts/oclgrind-suppressions.txt): a kernel fills all 8 floats of x, the host
// writes x[4] alone (clEnqueueWriteBuffer at an offset, as a write through a sub-buffer is), and
// a second kernel copies x to y. Every element of x is initialized, and y reads 1 1 1 1 2 1 1 1;
// Oclgrind 21.10 reports the copy's loads as uninitialized all the same: its hostMemoryStore
// replaces the buffer's whole shadow with a fresh one the size of the write (ShadowMemory::
// allocate), dropping what the fill initialized, and at an offset past that size does not even
// mark the written bytes. Exit 0 when y is right; the reports go to Oclgrind's log.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char* kSource =
    "__kernel void fill(__global float* x) { x[get_global_id(0)] = 1.0f; }\n"
    "__kernel void copy(__global const float* x, __global float* y) {\n"
    "  y[get_global_id(0)] = x[get_global_id(0)];\n"
    "}\n";

#define CHECK(call)                                           \
  do {                                                        \
    cl_int status_ = (call);                                  \
    if (status_ != CL_SUCCESS) {                              \
      fprintf(stderr, "%s failed: %d\n", #call, (int)status_); \
      return 2;                                               \
    }                                                         \
  } while (0)

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
  cl_kernel fill = clCreateKernel(program, "fill", &err);
  CHECK(err);
  cl_kernel copy = clCreateKernel(program, "copy", &err);
  CHECK(err);
  const size_t n = 8;
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  CHECK(err);
  cl_mem y = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  CHECK(err);

  CHECK(clSetKernelArg(fill, 0, sizeof(cl_mem), &x));
  CHECK(clEnqueueNDRangeKernel(queue, fill, 1, NULL, &n, NULL, 0, NULL, NULL));
  const float two = 2.0f;
  CHECK(clEnqueueWriteBuffer(queue, x, CL_TRUE, 4 * sizeof(float), sizeof(float), &two, 0, NULL,
                             NULL));
  CHECK(clSetKernelArg(copy, 0, sizeof(cl_mem), &x));
  CHECK(clSetKernelArg(copy, 1, sizeof(cl_mem), &y));
  CHECK(clEnqueueNDRangeKernel(queue, copy, 1, NULL, &n, NULL, 0, NULL, NULL));
  float out[8];
  CHECK(clEnqueueReadBuffer(queue, y, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));

  int right = 1;
  for (size_t i = 0; i < n; ++i) {
    printf("%g ", out[i]);
    right &= out[i] == (i == 4 ? 2.0f : 1.0f);
  }
  printf("\n");
  clReleaseMemObject(y);
  clReleaseMemObject(x);
  clReleaseKernel(copy);
  clReleaseKernel(fill);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return right ? 0 : 1;
}
