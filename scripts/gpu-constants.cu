// Measures the GPU model's constants (runtime/layer GpuModel.cpp) on the GPU
// at hand, the way sympow-bench times kernels: CUDA events around each
// launch, a 256 MB write between launches so nothing stays in L2, the median
// of many launches. Prints one JSON object.
//
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a \
//       scripts/gpu-constants.cu -o gpu-constants && ./gpu-constants
//
// launch_seconds      an empty kernel (1 block of 32 threads)
// barrier_seconds     one __syncthreads() of a 256-thread block between
//                     dependent shared-memory accesses, per barrier
// dram_latency_seconds one global load that depends on the previous one,
//                     over a 1 GiB random cycle (TLB misses included)
// dram_bytes_per_second a copy of 2 GiB (bytes read plus written)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void empty() {}

__global__ void barriers(int *out, int n) {
  __shared__ int cell[256];
  int v = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    cell[threadIdx.x] = v;
    __syncthreads();
    v = cell[(threadIdx.x + 1) & 255] + 1;
    __syncthreads();
  }
  if (v == -1)
    *out = v;
}

__global__ void chase(const unsigned *next, unsigned *out, int n) {
  unsigned i = 0;
  for (int k = 0; k < n; ++k)
    i = next[i];
  *out = i;
}

__global__ void copy(const int4 *in, int4 *out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

static void *flushBuffer;
static const size_t kFlushBytes = 256u << 20;

template <typename Launch> double medianSeconds(int repeat, Launch launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int r = 0; r < repeat + 3; ++r) {
    CHECK(cudaMemsetAsync(flushBuffer, r, kFlushBytes));
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (r >= 3)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e-3;
}

int main() {
  CHECK(cudaMalloc(&flushBuffer, kFlushBytes));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));

  double launch = medianSeconds(200, [] { empty<<<1, 32>>>(); });

  int *sink;
  CHECK(cudaMalloc(&sink, 64));
  const int kBarrierLoops = 4096;
  double barrierRun =
      medianSeconds(20, [&] { barriers<<<1, 256>>>(sink, kBarrierLoops); });
  double barrier = (barrierRun - launch) / (2.0 * kBarrierLoops);

  // A random cycle over 1 GiB of 4-byte indices, strided by 4 KiB pages
  // so that consecutive loads share no cache line.
  const size_t kWords = (1u << 30) / 4;
  std::vector<unsigned> order(kWords / 1024);
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = unsigned(i * 1024 + (i * 37) % 1024);
  std::srand(7);
  for (size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[size_t(std::rand()) % (i + 1)]);
  std::vector<unsigned> next(kWords, 0);
  for (size_t i = 0; i < order.size(); ++i)
    next[order[i]] = order[(i + 1) % order.size()];
  next[0] = order[0];
  unsigned *deviceNext, *deviceOut;
  CHECK(cudaMalloc(&deviceNext, kWords * 4));
  CHECK(cudaMalloc(&deviceOut, 4));
  CHECK(
      cudaMemcpy(deviceNext, next.data(), kWords * 4, cudaMemcpyHostToDevice));
  const int kChase = 20000;
  double chaseRun = medianSeconds(
      10, [&] { chase<<<1, 1>>>(deviceNext, deviceOut, kChase); });
  double latency = (chaseRun - launch) / kChase;

  const size_t kCopyBytes = size_t(2) << 30;
  int4 *in, *out;
  CHECK(cudaMalloc(&in, kCopyBytes));
  CHECK(cudaMalloc(&out, kCopyBytes));
  CHECK(cudaMemset(in, 1, kCopyBytes));
  size_t n = kCopyBytes / sizeof(int4);
  double copyRun = medianSeconds(
      10, [&] { copy<<<prop.multiProcessorCount * 8, 256>>>(in, out, n); });
  CHECK(cudaGetLastError());

  std::printf("{\"device\": \"%s\", \"sms\": %d, \"launch_seconds\": %.4g, "
              "\"barrier_seconds\": %.4g, \"dram_latency_seconds\": %.4g, "
              "\"dram_bytes_per_second\": %.4g}\n",
              prop.name, prop.multiProcessorCount, launch, barrier, latency,
              2.0 * kCopyBytes / copyRun);
  return 0;
}
