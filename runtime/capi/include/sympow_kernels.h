/*===- sympow_kernels.h - The C API of a sympow kernel library -----*- C -*-===*
 *
 * A library built by `sympow-aot --out DIR` embeds the kernels of the
 * variants it was asked for: a cubin per architecture, PTX for newer GPUs,
 * and the emulator build of the same kernels. This header is how a trainer
 * or a server uses them, from C, C++ or any FFI (docs/KernelLibrary.md).
 *
 * - A context runs kernels on one CUDA device or on the CPU emulator.
 * - A layer description (sympow_layer_desc) holds SPEC's parameters; a call
 *   finds the kernels compiled for exactly that description, or fails with
 *   SYMPOW_ERROR_NOT_COMPILED naming the variant to build.
 * - Tensors are described with shape, strides and dtype. Every argument is
 *   checked first; on any error nothing is launched and nothing is written.
 * - Workspace sizes are queried; the calls allocate nothing. The first call
 *   of a variant loads its kernels (once per context, thread-safe).
 * - Every function is thread-safe. On error, sympow_last_error() returns a
 *   message for the calling thread that names the problem.
 *
 * Device pointers are CUdeviceptr values cast to void* on CUDA, host memory
 * on the emulator. The emulator runs a call before it returns; CUDA calls
 * are queued on the given stream (a CUstream, NULL for the default one).
 *
 *===----------------------------------------------------------------------===*/

#ifndef SYMPOW_KERNELS_H
#define SYMPOW_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SYMPOW_KERNELS_API_VERSION 2

typedef enum sympow_status {
  SYMPOW_SUCCESS = 0,
  SYMPOW_ERROR_INVALID_ARGUMENT = 1, /* null pointer, shape, stride, dtype,
                                        alignment, parameter out of range */
  SYMPOW_ERROR_NOT_COMPILED = 2,     /* no kernels for this description */
  SYMPOW_ERROR_BACKEND = 3,          /* the driver or the emulator failed */
  SYMPOW_ERROR_NO_DEVICE = 4,        /* no CUDA driver or no such device */
} sympow_status;

typedef enum sympow_backend {
  SYMPOW_BACKEND_EMULATOR = 0, /* the CPU emulator: host pointers */
  SYMPOW_BACKEND_CUDA = 1,     /* a GPU through the CUDA driver */
} sympow_backend;

typedef enum sympow_dtype {
  SYMPOW_DTYPE_BF16 = 0,
  SYMPOW_DTYPE_F16 = 1,
  SYMPOW_DTYPE_F32 = 2,
  SYMPOW_DTYPE_F64 = 3, /* only the state's c */
} sympow_dtype;

typedef enum sympow_schedule {
  SYMPOW_SCHEDULE_NONE = 0,    /* no rotation */
  SYMPOW_SCHEDULE_UNIFORM = 1, /* RoPE: c_t = c_0 + t + 1 */
  SYMPOW_SCHEDULE_LEARNED = 2, /* c_t = c_0 + sum of beta */
  SYMPOW_SCHEDULE_WARPED = 3,  /* attention formulation only */
  SYMPOW_SCHEDULE_BLEND = 4,   /* attention formulation only */
} sympow_schedule;

typedef enum sympow_rope_layout {
  SYMPOW_ROPE_INTERLEAVED = 0, /* pairs (2j, 2j + 1) */
  SYMPOW_ROPE_HALF = 1,        /* pairs (j, j + r/2) */
} sympow_rope_layout;

typedef enum sympow_formulation {
  SYMPOW_FORMULATION_AUTO = 0, /* the compiled formulation that fits best */
  SYMPOW_FORMULATION_ATTENTION = 1,
  SYMPOW_FORMULATION_CHUNKED = 2,
  SYMPOW_FORMULATION_RECURRENT = 3,
} sympow_formulation;

/* A layer: everything the kernels are specialised for. Fill it with
 * sympow_layer_desc_init (SPEC's defaults), then set what differs. */
typedef struct sympow_layer_desc {
  int64_t power;      /* p: even, >= 2 */
  int64_t head_dim;   /* d: q and k */
  int64_t value_dim;  /* e: v and y */
  int64_t query_heads; /* Hq, a multiple of kv_heads */
  int64_t kv_heads;   /* H */
  sympow_dtype dtype; /* q, k, v, y: bf16, f16 or f32 */
  int32_t has_log_g;     /* the data-dependent gate log_g [B, T, H] */
  int32_t has_log_gamma; /* the per-head gate log_gamma [H] */
  sympow_schedule schedule; /* learned needs beta [B, T, H] */
  double rope_base;         /* rates rope_scale * base^(-2j/r) */
  double rope_scale;
  int64_t rope_dims; /* r: even, <= d; 0 means d */
  sympow_rope_layout rope_layout;
  int64_t warp_length; /* L of warped and blend */
  double scale;        /* 0 means 1/sqrt(d) */
  sympow_formulation formulation;
  int64_t chunk_size; /* chunked: C; 0 takes the one compiled */
} sympow_layer_desc;

#define SYMPOW_MAX_RANK 4

/* A tensor: `data` is a device pointer (host memory on the emulator),
 * shape and strides (in elements) have `rank` entries. The kernels read
 * row-major contiguous tensors: other strides are refused. */
typedef struct sympow_tensor {
  void *data;
  sympow_dtype dtype;
  int32_t rank;
  int64_t shape[SYMPOW_MAX_RANK];
  int64_t strides[SYMPOW_MAX_RANK];
} sympow_tensor;

/* The recurrent state of SPEC: S [B, H, D, e] f32, Z [B, H, D] f32,
 * c [B, H] f64 (f64 keeps angles exact at any length). */
typedef struct sympow_state {
  sympow_tensor S, Z, c;
} sympow_state;

/* One forward call. Optional tensors have data == NULL. */
typedef struct sympow_forward_args {
  sympow_tensor q;         /* [B, T, Hq, d] */
  sympow_tensor k;         /* [B, T, H, d] */
  sympow_tensor v;         /* [B, T, H, e] */
  sympow_tensor log_g;     /* [B, T, H] f32, when desc.has_log_g */
  sympow_tensor log_gamma; /* [H] f32, when desc.has_log_gamma */
  sympow_tensor beta;      /* [B, T, H] f32, when the schedule is learned */
  sympow_tensor y;         /* [B, T, Hq, e] output */
  /* Optional; not with warped or blend. The final state may alias the
   * initial one (updated in place). */
  const sympow_state *initial_state;
  sympow_state *final_state;
  void *workspace; /* sympow_forward_workspace_size bytes, 256-aligned */
  size_t workspace_bytes;
  void *stream;
} sympow_forward_args;

typedef struct sympow_context sympow_context;

/* SPEC's defaults: p = 2, d = e = 64, Hq = H = 1, bf16, no gates, no
 * rotation (base 10000, scale 1, interleaved when enabled), auto. */
void sympow_layer_desc_init(sympow_layer_desc *desc);

/* A contiguous row-major tensor of `rank` dims (strides filled in). */
sympow_tensor sympow_tensor_contiguous(void *data, sympow_dtype dtype,
                                       int32_t rank, const int64_t *shape);

/* The message of the calling thread's last failed call ("" if none). */
const char *sympow_last_error(void);

/* `device` is the CUDA device ordinal (ignored by the emulator). */
sympow_status sympow_context_create(sympow_backend backend, int device,
                                    sympow_context **context);
void sympow_context_destroy(sympow_context *context);

/* The variants compiled into this library, as sympow-aot --variant strings
 * (with formulation and chunk). */
size_t sympow_variant_count(void);
const char *sympow_variant_name(size_t index); /* NULL past the end */
/* The description variant `index` was compiled for (defaults resolved, its
 * formulation and chunk size exact). */
sympow_status sympow_variant_desc(size_t index, sympow_layer_desc *desc);

/* Whether the library holds kernels for `desc` (its formulation, or any
 * when auto). 1 or 0; sympow_last_error says why not. */
int sympow_is_compiled(const sympow_layer_desc *desc);

/* Which states a forward call will be given (they decide the formulation
 * auto picks and the scratch the call needs). */
typedef enum sympow_state_flags {
  SYMPOW_WITH_INITIAL_STATE = 1,
  SYMPOW_WITH_FINAL_STATE = 2,
} sympow_state_flags;

/* Bytes of workspace a forward call of B sequences of T tokens needs
 * (0 is possible); `state_flags` is a mask of sympow_state_flags. */
sympow_status sympow_forward_workspace_size(sympow_context *context,
                                            const sympow_layer_desc *desc,
                                            int64_t B, int64_t T,
                                            uint32_t state_flags,
                                            size_t *bytes);

/* y = layer(q, k, v, ...) per SPEC, from initial_state (zeros if none);
 * writes final_state when given. */
sympow_status sympow_forward(sympow_context *context,
                             const sympow_layer_desc *desc,
                             const sympow_forward_args *args);

/* The recurrent step for serving: T new tokens (usually 1) per sequence
 * against `state`, which is read and updated in place. Uses the recurrent
 * kernels of `desc` whatever its formulation says. The state is split over
 * many blocks whose partial sums meet in the workspace:
 * sympow_decode_workspace_size bytes (B * T * Hq * X * (e + 1) partial
 * sums, X = 44 blocks per state at p = 2, d = e = 64, 8 heads: 92 KB for
 * one bf16 token, and B * H arrival counters), 256-aligned. It needs no
 * initialisation: at T = 1 the last block of each state to finish writes
 * y (one kernel), and the counters that tell it are left ready for the
 * next call; calls that share a workspace must not run concurrently. */
typedef struct sympow_decode_args {
  sympow_tensor q, k, v;             /* [B, T, Hq|H, d|e] */
  sympow_tensor log_g, beta;         /* [B, T, H] f32 when the desc has them */
  sympow_tensor log_gamma;           /* [H] f32 when the desc has it */
  sympow_tensor y;                   /* [B, T, Hq, e] */
  sympow_state *state;               /* in and out */
  void *stream;
  void *workspace; /* sympow_decode_workspace_size bytes, 256-aligned */
  size_t workspace_bytes;
} sympow_decode_args;

/* Bytes of workspace a decode call of B sequences of T tokens needs. It
 * depends only on desc, B and T: a server can size it once for its
 * largest batch. */
sympow_status sympow_decode_workspace_size(sympow_context *context,
                                           const sympow_layer_desc *desc,
                                           int64_t B, int64_t T,
                                           size_t *bytes);

sympow_status sympow_decode(sympow_context *context,
                            const sympow_layer_desc *desc,
                            const sympow_decode_args *args);

/* Device memory of the context (host memory on the emulator), for callers
 * that hold their tensors on the host (the Python package, tests). */
sympow_status sympow_device_alloc(sympow_context *context, size_t bytes,
                                  void **ptr);
sympow_status sympow_device_free(sympow_context *context, void *ptr);
sympow_status sympow_copy_to_device(sympow_context *context, void *dst,
                                    const void *src, size_t bytes);
sympow_status sympow_copy_to_host(sympow_context *context, void *dst,
                                  const void *src, size_t bytes);

/* Waits for the work queued on `stream` (a no-op on the emulator). */
sympow_status sympow_synchronize(sympow_context *context, void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SYMPOW_KERNELS_H */
