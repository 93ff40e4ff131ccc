/*===- sympow_kernels_registry.h - What a kernel library embeds ----*- C -*-===*
 *
 * The table sympow-aot generates into a kernel library (the source it
 * compiles is DIR/build/sympow_kernels_registry.c): one entry per variant and
 * formulation, with its images and the launch shape of each kernel. The C
 * API reads it; users do not need it.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SYMPOW_KERNELS_REGISTRY_H
#define SYMPOW_KERNELS_REGISTRY_H

#include "sympow_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYMPOW_REGISTRY_VERSION 2

typedef enum sympow_image_format {
  SYMPOW_IMAGE_CUBIN = 0,
  SYMPOW_IMAGE_PTX = 1,
  SYMPOW_IMAGE_HOST_SHARED_OBJECT = 2, /* the emulator build */
} sympow_image_format;

typedef struct sympow_registry_image {
  const char *arch; /* "sm_80", "sm_90a"; PTX: the oldest it runs on;
                       "emulator" for the host build */
  sympow_image_format format;
  const unsigned char *data;
  uint64_t size;
} sympow_registry_image;

typedef struct sympow_registry_kernel {
  const char *name;
  uint32_t block[3];
  int64_t tokens_per_block;
  int64_t grid_y;
  uint32_t dynamic_shared_bytes;
  int64_t blocks_x; /* grid x when nonzero (else from tokens_per_block);
                       version 2 */
} sympow_registry_kernel;

typedef struct sympow_registry_entry {
  const char *variant;    /* the sympow-aot --variant string */
  sympow_layer_desc desc; /* formulation and chunk_size are exact */
  const sympow_registry_image *images;
  uint32_t image_count;
  const sympow_registry_kernel *kernels; /* in launch order */
  uint32_t kernel_count;
} sympow_registry_entry;

typedef struct sympow_registry {
  uint32_t version; /* SYMPOW_REGISTRY_VERSION */
  const char *compiler; /* what built it */
  const sympow_registry_entry *entries;
  uint32_t entry_count;
} sympow_registry;

/* Defined by the generated registry of a library. */
extern const sympow_registry sympow_kernels_registry;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SYMPOW_KERNELS_REGISTRY_H */
