/*===- WriteFault.c - Injected write failures (LD_PRELOAD) ----------------===*
 *
 * libsympow-write-fault.so, preloaded into a tool by check_write_failures.py
 * (docs/Reliability.md), makes its writes fail the way a full disk, a
 * read-only file system or a kill mid-write would, for the files whose path
 * contains $SYMPOW_FAULT_PATH (every file if unset):
 *
 *   SYMPOW_FAULT_BYTES=N    after N bytes written to such files, a write
 *                           fails with ENOSPC (a partial write first, as a
 *                           full disk does), or with $SYMPOW_FAULT_ERRNO
 *                           (a number)
 *   SYMPOW_FAULT_KILL=1     ... the process kills itself (SIGKILL) instead
 *   SYMPOW_FAULT_OPEN=1     opening such a file for writing fails (EROFS)
 *
 * Wrapped: open, open64, openat, openat64, creat, fopen, fopen64, write,
 * pwrite, pwrite64, writev, fwrite, fputs, fputc, putc. Child processes
 * (sympow-aot's compiler and linker) inherit it, each with its own count.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long budget = -1; /* bytes left; -1: unlimited */
static int initialised, killMode, openMode, failErrno = ENOSPC;
static const char *pathPart;

static void init(void) {
  if (initialised)
    return;
  initialised = 1;
  const char *b = getenv("SYMPOW_FAULT_BYTES");
  if (b && *b)
    budget = atoll(b);
  const char *k = getenv("SYMPOW_FAULT_KILL");
  killMode = k && *k == '1';
  const char *o = getenv("SYMPOW_FAULT_OPEN");
  openMode = o && *o == '1';
  const char *e = getenv("SYMPOW_FAULT_ERRNO");
  if (e && *e)
    failErrno = atoi(e);
  pathPart = getenv("SYMPOW_FAULT_PATH");
}

static int pathMatches(const char *path) {
  if (!path)
    return 0;
  if (!pathPart || !*pathPart || strstr(path, pathPart))
    return 1;
  if (path[0] == '/')
    return 0;
  char full[4096];
  if (!getcwd(full, sizeof full - 2))
    return 0;
  strncat(full, "/", sizeof full - strlen(full) - 1);
  strncat(full, path, sizeof full - strlen(full) - 1);
  return strstr(full, pathPart) != NULL;
}

static int fdMatches(int fd) {
  if (fd <= 2)
    return 0; /* messages always get out */
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0 || path[0] != '/')
    return 0; /* pipes and sockets */
  path[n] = 0;
  return pathMatches(path);
}

/* How many of `want` bytes to fd may be written; 0 with errno set: none. */
static size_t allowed(int fd, size_t want) {
  init();
  if (budget < 0 || want == 0 || !fdMatches(fd))
    return want;
  if ((long long)want <= budget) {
    budget -= (long long)want;
    return want;
  }
  if (killMode)
    kill(getpid(), SIGKILL);
  size_t part = (size_t)budget;
  budget = 0;
  if (part == 0)
    errno = failErrno;
  return part;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t count) {
  size_t n = allowed(fd, count);
  if (count && !n)
    return -1;
  return REAL(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  size_t n = allowed(fd, count);
  if (count && !n)
    return -1;
  return REAL(pwrite)(fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  size_t n = allowed(fd, count);
  if (count && !n)
    return -1;
  return REAL(pwrite64)(fd, buf, n, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i)
    total += iov[i].iov_len;
  size_t n = allowed(fd, total);
  if (total && !n)
    return -1;
  if (n == total)
    return REAL(writev)(fd, iov, iovcnt);
  /* A partial write: the first n bytes only. */
  ssize_t done = 0;
  for (int i = 0; i < iovcnt && (size_t)done < n; ++i) {
    size_t len = iov[i].iov_len < n - done ? iov[i].iov_len : n - done;
    ssize_t w = REAL(write)(fd, iov[i].iov_base, len);
    if (w < 0)
      return done ? done : -1;
    done += w;
  }
  return done;
}

size_t fwrite(const void *ptr, size_t size, size_t nmemb, FILE *stream) {
  size_t bytes = size * nmemb;
  if (!size || !nmemb)
    return 0;
  size_t n = allowed(fileno(stream), bytes);
  if (n < bytes) {
    size_t whole = n / size;
    if (whole)
      REAL(fwrite)(ptr, size, whole, stream);
    errno = failErrno;
    return whole;
  }
  return REAL(fwrite)(ptr, size, nmemb, stream);
}

int fputs(const char *s, FILE *stream) {
  size_t len = strlen(s);
  return fwrite(s, 1, len, stream) == len ? 1 : EOF;
}

int fputc(int c, FILE *stream) {
  unsigned char ch = (unsigned char)c;
  return fwrite(&ch, 1, 1, stream) == 1 ? c : EOF;
}

int putc(int c, FILE *stream) { return fputc(c, stream); }

static int refusedOpen(const char *path, int flags) {
  init();
  if (openMode && (flags & (O_WRONLY | O_RDWR | O_CREAT)) &&
      pathMatches(path)) {
    errno = EROFS;
    return 1;
  }
  return 0;
}

#define OPEN_WRAPPER(name)                                                     \
  int name(const char *path, int flags, ...) {                                 \
    mode_t mode = 0;                                                           \
    if (flags & (O_CREAT | O_TMPFILE)) {                                       \
      va_list ap;                                                              \
      va_start(ap, flags);                                                     \
      mode = va_arg(ap, mode_t);                                               \
      va_end(ap);                                                              \
    }                                                                          \
    if (refusedOpen(path, flags))                                              \
      return -1;                                                               \
    return REAL(name)(path, flags, mode);                                      \
  }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

#define OPENAT_WRAPPER(name)                                                   \
  int name(int dir, const char *path, int flags, ...) {                        \
    mode_t mode = 0;                                                           \
    if (flags & (O_CREAT | O_TMPFILE)) {                                       \
      va_list ap;                                                              \
      va_start(ap, flags);                                                     \
      mode = va_arg(ap, mode_t);                                               \
      va_end(ap);                                                              \
    }                                                                          \
    if (refusedOpen(path, flags))                                              \
      return -1;                                                               \
    return REAL(name)(dir, path, flags, mode);                                 \
  }
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

int creat(const char *path, mode_t mode) {
  if (refusedOpen(path, O_CREAT | O_WRONLY))
    return -1;
  return REAL(creat)(path, mode);
}

static FILE *openStream(FILE *(*real)(const char *, const char *),
                        const char *path, const char *mode) {
  init();
  if (openMode && strpbrk(mode, "wa+") && pathMatches(path)) {
    errno = EROFS;
    return NULL;
  }
  return real(path, mode);
}

FILE *fopen(const char *path, const char *mode) {
  return openStream(REAL(fopen), path, mode);
}

FILE *fopen64(const char *path, const char *mode) {
  return openStream(REAL(fopen64), path, mode);
}
