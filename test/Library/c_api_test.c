/* The C API of a built kernel library, from C, linked against the shared
 * library: forward, state, decode, threads, and every kind of bad argument
 * (each must fail with its status and a message naming the problem, and
 * leave the output untouched). Runs on the emulator; the library holds
 * test/Library/kernels.json. */

#include "sympow_kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond);                  \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
    }                                                                          \
  } while (0)

enum { B = 2, T = 21, HQ = 2, H = 1, D = 16, E = 16, DIM = 136 };

/* 16-byte aligned host buffers (the emulator's device memory is host). */
typedef struct {
  _Alignas(16) float q[B * T * HQ * D];
  _Alignas(16) float k[B * T * H * D];
  _Alignas(16) float v[B * T * H * E];
  _Alignas(16) float logG[B * T * H];
  _Alignas(16) float beta[B * T * H];
  _Alignas(16) float y[B * T * HQ * E];
  _Alignas(16) float S[B * H * DIM * E];
  _Alignas(16) float Z[B * H * DIM];
  _Alignas(16) double c[B * H];
} Buffers;

static sympow_layer_desc layerDesc(void) {
  sympow_layer_desc d;
  sympow_layer_desc_init(&d);
  d.power = 2;
  d.head_dim = D;
  d.value_dim = E;
  d.query_heads = HQ;
  d.kv_heads = H;
  d.dtype = SYMPOW_DTYPE_F32;
  d.has_log_g = 1;
  d.schedule = SYMPOW_SCHEDULE_LEARNED;
  d.chunk_size = 16;
  return d;
}

static sympow_tensor tensor(void *data, sympow_dtype dtype, int rank,
                            int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t shape[4] = {a, b, c, d};
  return sympow_tensor_contiguous(data, dtype, rank, shape);
}

static void fill(Buffers *x, unsigned seed) {
  srand(seed);
  float *all[] = {x->q, x->k, x->v};
  size_t sizes[] = {B * T * HQ * D, B * T * H * D, B * T * H * E};
  for (int i = 0; i < 3; ++i)
    for (size_t j = 0; j < sizes[i]; ++j)
      all[i][j] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
  for (size_t j = 0; j < B * T * H; ++j) {
    x->logG[j] = logf(0.9f + 0.1f * (float)rand() / RAND_MAX);
    x->beta[j] = 0.5f + (float)rand() / RAND_MAX;
  }
}

/* Arguments over tokens [t0, t0 + n) of `x` are not expressible with
 * contiguous tensors, so calls always cover all T tokens (or 1 for decode
 * of a T = 1 copy). */
static sympow_forward_args forwardArgs(Buffers *x, int64_t tokens) {
  sympow_forward_args a;
  memset(&a, 0, sizeof(a));
  a.q = tensor(x->q, SYMPOW_DTYPE_F32, 4, B, tokens, HQ, D);
  a.k = tensor(x->k, SYMPOW_DTYPE_F32, 4, B, tokens, H, D);
  a.v = tensor(x->v, SYMPOW_DTYPE_F32, 4, B, tokens, H, E);
  a.log_g = tensor(x->logG, SYMPOW_DTYPE_F32, 3, B, tokens, H, 0);
  a.beta = tensor(x->beta, SYMPOW_DTYPE_F32, 3, B, tokens, H, 0);
  a.y = tensor(x->y, SYMPOW_DTYPE_F32, 4, B, tokens, HQ, E);
  return a;
}

static sympow_state stateOf(Buffers *x) {
  sympow_state s;
  s.S = tensor(x->S, SYMPOW_DTYPE_F32, 4, B, H, DIM, E);
  s.Z = tensor(x->Z, SYMPOW_DTYPE_F32, 3, B, H, DIM, 0);
  s.c = tensor(x->c, SYMPOW_DTYPE_F64, 2, B, H, 0, 0);
  return s;
}

static void *workspace = NULL;
static size_t workspaceBytes = 0;

/* Checks that a call failed with `status`, a message containing `text`,
 * and y untouched. */
static void expectFailure(sympow_status got, sympow_status want,
                          const char *text, const Buffers *x, int line) {
  const char *message = sympow_last_error();
  if (got != want || !strstr(message, text)) {
    ++failures;
    fprintf(stderr, "FAIL line %d: status %d (want %d), message '%s' (want "
                    "'%s')\n", line, got, want, message, text);
  }
  for (size_t i = 0; i < B * T * HQ * E; ++i)
    if (memcmp(&x->y[i], "\x7f\x7f\x7f\x7f", 4)) {
      ++failures;
      fprintf(stderr, "FAIL line %d: y was written by a failed call\n", line);
      break;
    }
}
#define EXPECT_FAILS(call, status, text)                                       \
  expectFailure((call), (status), (text), x, __LINE__)

static void badArguments(sympow_context *ctx, Buffers *x) {
  sympow_layer_desc d = layerDesc();
  memset(x->y, 0x7f, sizeof(x->y));
  sympow_forward_args a = forwardArgs(x, T);
  a.workspace = workspace;
  a.workspace_bytes = workspaceBytes;
  sympow_forward_args bad;

  EXPECT_FAILS(sympow_forward(NULL, &d, &a), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'context' is null");
  EXPECT_FAILS(sympow_forward(ctx, NULL, &a), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'desc' is null");
  EXPECT_FAILS(sympow_forward(ctx, &d, NULL), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'args' is null");
  bad = a, bad.q.data = NULL;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'q' is null");
  bad = a, bad.k.shape[2] = 2;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'k' has shape [2, 21, 2, 16], the layer needs [2, 21, 1, 16]");
  bad = a, bad.v.dtype = SYMPOW_DTYPE_BF16;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'v' is bf16, must be f32");
  bad = a, bad.q.strides[0] = 2 * T * HQ * D;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "row-major contiguous");
  bad = a, bad.y.data = (char *)x->y + 4;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'y' is not aligned to 16 bytes");
  bad = a, bad.log_g.data = NULL;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'log_g' is null but desc.has_log_g is set");
  bad = a, bad.log_gamma = bad.log_g;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'log_gamma' is given but desc.has_log_gamma is 0");
  /* Whatever int a C caller stores in an enum field is refused by value
   * (reading it as the C++ enum would be undefined), and a shape whose bytes
   * overflow is refused before any size is computed from it. */
  bad = a, bad.v.dtype = (sympow_dtype)99;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "'v' is dtype 99, must be f32");
  sympow_layer_desc unknownDtype = d;
  unknownDtype.dtype = (sympow_dtype)77;
  EXPECT_FAILS(sympow_forward(ctx, &unknownDtype, &a),
               SYMPOW_ERROR_INVALID_ARGUMENT,
               "dtype 77 is not a layer dtype");
  bad = a, bad.q.shape[0] = (int64_t)1 << 62;
  EXPECT_FAILS(sympow_forward(ctx, &d, &bad), SYMPOW_ERROR_INVALID_ARGUMENT,
               "more bytes than memory can hold");
  /* A wrong input is named before the library is searched (no variant
   * without rotation is compiled here). */
  sympow_layer_desc unrotated = d;
  unrotated.schedule = SYMPOW_SCHEDULE_NONE;
  EXPECT_FAILS(sympow_forward(ctx, &unrotated, &a),
               SYMPOW_ERROR_INVALID_ARGUMENT,
               "'beta' is given but the schedule is not learned");
  sympow_layer_desc chunked = d;
  chunked.formulation = SYMPOW_FORMULATION_CHUNKED;
  bad = a, bad.workspace_bytes = 16;
  EXPECT_FAILS(sympow_forward(ctx, &chunked, &bad),
               SYMPOW_ERROR_INVALID_ARGUMENT, "the workspace has 16 bytes");

  sympow_layer_desc odd = d;
  odd.power = 3;
  EXPECT_FAILS(sympow_forward(ctx, &odd, &a), SYMPOW_ERROR_INVALID_ARGUMENT,
               "p must be an even integer >= 2");
  sympow_layer_desc missing = d;
  missing.head_dim = 32;
  EXPECT_FAILS(sympow_forward(ctx, &missing, &a), SYMPOW_ERROR_NOT_COMPILED,
               "build them with sympow-aot --variant \"p=2,d=32,e=16");
  EXPECT(!sympow_is_compiled(&missing), "d = 32 is not in the library");
  EXPECT(sympow_is_compiled(&d), "%s", sympow_last_error());

  sympow_layer_desc attention = d;
  attention.formulation = SYMPOW_FORMULATION_ATTENTION;
  sympow_state state = stateOf(x);
  bad = a, bad.final_state = &state;
  EXPECT_FAILS(sympow_forward(ctx, &attention, &bad),
               SYMPOW_ERROR_INVALID_ARGUMENT,
               "the attention formulation takes no initial or final state");
  sympow_decode_args decodeArgs;
  memset(&decodeArgs, 0, sizeof(decodeArgs));
  decodeArgs.q = a.q;
  EXPECT_FAILS(sympow_decode(ctx, &d, &decodeArgs),
               SYMPOW_ERROR_INVALID_ARGUMENT, "'state' is null");
}

/* Forward of the whole sequence, then its last two tokens again by two
 * decode steps from the state after the first T - 2 tokens: the same y.
 * The steps share one workspace, filled with garbage before the first:
 * recurrent_state's arrival counters need no zeroing, and the first step
 * leaves them ready for the second. */
static void stateAndDecode(sympow_context *ctx, Buffers *x) {
  sympow_layer_desc d = layerDesc();
  d.formulation = SYMPOW_FORMULATION_CHUNKED;
  sympow_forward_args a = forwardArgs(x, T);
  a.workspace = workspace;
  a.workspace_bytes = workspaceBytes;
  sympow_status s = sympow_forward(ctx, &d, &a);
  EXPECT(s == SYMPOW_SUCCESS, "%s", sympow_last_error());
  static float full[B * T * HQ * E];
  memcpy(full, x->y, sizeof(full));
  double maxY = 0;
  for (size_t i = 0; i < B * T * HQ * E; ++i)
    maxY = fmax(maxY, fabs(full[i]));
  EXPECT(maxY > 0 && isfinite(maxY), "y is all zero or not finite");

  /* A copy of the layer with each sequence's first T - 2 tokens, then one
   * with each of its last two. */
  enum { STEPS = 2, T1 = T - STEPS };
  static Buffers head, tail[STEPS];
  for (int b = 0; b < B; ++b) {
#define ROWS(field, width, from, count, to, at)                                \
  memcpy(to.field + (size_t)(b * (at)) * (width),                              \
         x->field + (size_t)(b * T + (from)) * (width),                        \
         sizeof(float) * (size_t)(count) * (width))
    ROWS(q, HQ * D, 0, T1, head, T1);
    ROWS(k, H * D, 0, T1, head, T1);
    ROWS(v, H * E, 0, T1, head, T1);
    ROWS(logG, H, 0, T1, head, T1);
    ROWS(beta, H, 0, T1, head, T1);
    for (int i = 0; i < STEPS; ++i) {
      ROWS(q, HQ * D, T1 + i, 1, tail[i], 1);
      ROWS(k, H * D, T1 + i, 1, tail[i], 1);
      ROWS(v, H * E, T1 + i, 1, tail[i], 1);
      ROWS(logG, H, T1 + i, 1, tail[i], 1);
      ROWS(beta, H, T1 + i, 1, tail[i], 1);
    }
#undef ROWS
  }
  sympow_forward_args h = forwardArgs(&head, T1);
  sympow_state state = stateOf(&head);
  h.final_state = &state;
  size_t bytes = 0;
  s = sympow_forward_workspace_size(ctx, &d, B, T1, SYMPOW_WITH_FINAL_STATE,
                                    &bytes);
  EXPECT(s == SYMPOW_SUCCESS && bytes <= workspaceBytes, "%s",
         sympow_last_error());
  h.workspace = workspace;
  h.workspace_bytes = workspaceBytes;
  s = sympow_forward(ctx, &d, &h);
  EXPECT(s == SYMPOW_SUCCESS, "%s", sympow_last_error());

  sympow_decode_args step;
  memset(&step, 0, sizeof(step));
  sympow_forward_args t = forwardArgs(&tail[0], 1);
  step.q = t.q, step.k = t.k, step.v = t.v, step.log_g = t.log_g;
  step.beta = t.beta, step.y = t.y, step.state = &state;
  s = sympow_decode(ctx, &d, &step);
  EXPECT(s == SYMPOW_ERROR_INVALID_ARGUMENT &&
             strstr(sympow_last_error(), "sympow_decode_workspace_size"),
         "decode without its workspace: %s", sympow_last_error());
  size_t stepBytes = 0;
  s = sympow_decode_workspace_size(ctx, &d, B, 1, &stepBytes);
  EXPECT(s == SYMPOW_SUCCESS && stepBytes > 0, "%s", sympow_last_error());
  /* A T whose workspace cannot be addressed is an error, not a wrapped size. */
  s = sympow_forward_workspace_size(ctx, &d, B, INT64_MAX, 0, &bytes);
  EXPECT(s == SYMPOW_ERROR_INVALID_ARGUMENT &&
             strstr(sympow_last_error(), "than memory can address"),
         "huge T: %s", sympow_last_error());
  size_t rounded = (stepBytes + 255) / 256 * 256;
  step.workspace = aligned_alloc(256, rounded);
  memset(step.workspace, 0xa5, rounded);
  step.workspace_bytes = stepBytes;
  double worst = 0;
  for (int i = 0; i < STEPS; ++i) {
    t = forwardArgs(&tail[i], 1);
    step.q = t.q, step.k = t.k, step.v = t.v, step.log_g = t.log_g;
    step.beta = t.beta, step.y = t.y;
    s = sympow_decode(ctx, &d, &step);
    EXPECT(s == SYMPOW_SUCCESS, "step %d: %s", i, sympow_last_error());
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < HQ * E; ++j)
        worst = fmax(worst, fabs(tail[i].y[b * HQ * E + j] -
                                 full[(b * T + T1 + i) * HQ * E + j]));
  }
  free(step.workspace);
  /* SPEC's f32 bound, relative to max|y|. */
  EXPECT(worst <= 1e-4 * maxY, "decode differs from forward by %g", worst);
}

typedef struct {
  sympow_context *ctx;
  Buffers *x;
  void *workspace;
  sympow_status status;
} Job;

static void *runJob(void *arg) {
  Job *job = arg;
  sympow_layer_desc d = layerDesc();
  sympow_forward_args a = forwardArgs(job->x, T);
  a.workspace = job->workspace;
  a.workspace_bytes = workspaceBytes;
  job->status = sympow_forward(job->ctx, &d, &a);
  return NULL;
}

/* Four threads on one context, each its own buffers: all equal the
 * single-threaded result. */
static void threads(sympow_context *ctx, Buffers *x) {
  enum { N = 4 };
  static Buffers copies[N];
  pthread_t ids[N];
  Job jobs[N];
  sympow_layer_desc d = layerDesc();
  sympow_forward_args a = forwardArgs(x, T);
  a.workspace = workspace;
  a.workspace_bytes = workspaceBytes;
  EXPECT(sympow_forward(ctx, &d, &a) == SYMPOW_SUCCESS, "%s",
         sympow_last_error());
  for (int i = 0; i < N; ++i) {
    copies[i] = *x;
    memset(copies[i].y, 0, sizeof(copies[i].y));
    jobs[i] = (Job){ctx, &copies[i], aligned_alloc(256, workspaceBytes),
                    SYMPOW_SUCCESS};
    pthread_create(&ids[i], NULL, runJob, &jobs[i]);
  }
  for (int i = 0; i < N; ++i) {
    pthread_join(ids[i], NULL);
    EXPECT(jobs[i].status == SYMPOW_SUCCESS, "thread %d failed", i);
    EXPECT(!memcmp(copies[i].y, x->y, sizeof(x->y)),
           "thread %d's y differs", i);
    free(jobs[i].workspace);
  }
}

int main(void) {
  size_t count = sympow_variant_count();
  EXPECT(count > 0, "the library holds no variants");
  for (size_t i = 0; i < count; ++i)
    EXPECT(sympow_variant_name(i) && *sympow_variant_name(i), "name %zu", i);
  EXPECT(sympow_variant_name(count) == NULL, "a name past the end");

  sympow_context *cuda = NULL;
  sympow_status s = sympow_context_create(SYMPOW_BACKEND_CUDA, 0, &cuda);
  if (s != SYMPOW_SUCCESS)
    EXPECT(s == SYMPOW_ERROR_NO_DEVICE && strstr(sympow_last_error(), "CUDA"),
           "cuda context: %d %s", s, sympow_last_error());
  sympow_context_destroy(cuda);
  EXPECT(sympow_context_create(SYMPOW_BACKEND_EMULATOR, 0, NULL) ==
             SYMPOW_ERROR_INVALID_ARGUMENT,
         "a null context pointer");

  sympow_context *ctx = NULL;
  s = sympow_context_create(SYMPOW_BACKEND_EMULATOR, 0, &ctx);
  if (s != SYMPOW_SUCCESS) {
    fprintf(stderr, "FAIL: emulator context: %s\n", sympow_last_error());
    return 1;
  }
  sympow_layer_desc d = layerDesc();
  d.formulation = SYMPOW_FORMULATION_CHUNKED;
  s = sympow_forward_workspace_size(ctx, &d, B, T, 0, &workspaceBytes);
  EXPECT(s == SYMPOW_SUCCESS && workspaceBytes > 0, "%s", sympow_last_error());
  workspace = aligned_alloc(256, workspaceBytes);

  static Buffers x;
  fill(&x, 1);
  badArguments(ctx, &x);
  stateAndDecode(ctx, &x);
  threads(ctx, &x);

  free(workspace);
  sympow_context_destroy(ctx);
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  else
    printf("C API: all checks passed\n");
  return failures ? 1 : 0;
}
