//===- Run.cpp - Executing one sympow-run invocation ----------------------===//

#include "Run.h"

#include "KernelRun.h"

#include "sympow/Npy/Npy.h"
#include "sympow/Reference/Forward.h"
#include "sympow/Reference/Validate.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sympow::run {

using reference::LayerDesc;
using reference::LayerInputs;
using reference::Result;
using reference::Schedule;
using reference::Status;
using reference::Tensor;

namespace {

Result<Tensor> load(const std::string &path) {
  npy::Result<npy::Array> a = npy::readNpy(path);
  if (a.isError())
    return Status::error(a.message());
  return Tensor(std::move(a->shape), std::move(a->data));
}

bool isWarp(Schedule s) {
  return s == Schedule::Warped || s == Schedule::Blend;
}

/// What names one file: device and inode for a file that exists, else the
/// absolute path with its directory resolved (realpath) or, where the
/// directory does not exist either, normalized lexically.
struct FileIdentity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;
  bool operator==(const FileIdentity &o) const {
    return exists == o.exists &&
           (exists ? dev == o.dev && ino == o.ino : path == o.path);
  }
};

std::string lexicallyNormal(const std::string &p) {
  std::string abs = p;
  if (abs.empty() || abs[0] != '/') {
    char buf[PATH_MAX];
    abs = std::string(::getcwd(buf, sizeof buf) ? buf : ".") + "/" + p;
  }
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= abs.size()) {
    size_t j = abs.find('/', i);
    if (j == std::string::npos)
      j = abs.size();
    std::string part = abs.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const std::string &part : parts)
    out += "/" + part;
  return out.empty() ? "/" : out;
}

FileIdentity identify(const std::string &p) {
  FileIdentity id;
  struct stat st;
  if (::stat(p.c_str(), &st) == 0) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  size_t slash = p.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : p.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
  char buf[PATH_MAX];
  if (!base.empty() && base != "." && base != ".." &&
      ::realpath(dir.c_str(), buf))
    id.path = lexicallyNormal(std::string(buf) + "/" + base);
  else
    id.path = lexicallyNormal(p);
  return id;
}

/// Two outputs naming the same file (under any spelling) are refused before
/// anything is read or written.
Status checkDistinctOutputs(const std::vector<std::string> &outs) {
  std::vector<FileIdentity> ids;
  for (size_t i = 0; i < outs.size(); ++i) {
    FileIdentity id = identify(outs[i]);
    for (size_t j = 0; j < i; ++j) {
      if (outs[j] == outs[i])
        return Status::error("output file '" + outs[i] + "' is given twice");
      if (ids[j] == id)
        return Status::error("output files '" + outs[j] + "' and '" +
                             outs[i] + "' are the same file");
    }
    ids.push_back(id);
  }
  return Status::success();
}

/// Flag-level consistency, phrased in terms of flags; the reference's
/// validation covers everything about values and shapes.
Status checkFlags(const Options &o, Schedule schedule) {
  const char *name = reference::toString(schedule);
  std::string sched = std::string("--schedule ") + name;
  if (schedule == Schedule::None) {
    const char *rope = o.ropeBase     ? "--rope-base"
                       : o.ropeScale  ? "--rope-scale"
                       : o.ropeDims   ? "--rope-dims"
                       : o.ropeLayout ? "--rope-layout"
                                      : nullptr;
    if (rope)
      return Status::error(std::string(rope) +
                           " has no effect with --schedule none (no "
                           "rotation); drop it or pick a rotating schedule");
  }
  if (schedule == Schedule::Learned && !o.beta)
    return Status::error("--schedule learned needs --beta BETA.npy");
  if (schedule != Schedule::Learned && o.beta)
    return Status::error("--beta is only used with --schedule learned, not " +
                         sched);
  if (isWarp(schedule) && !o.warpLength)
    return Status::error(sched + " needs --warp-length L");
  if (!isWarp(schedule) && o.warpLength)
    return Status::error("--warp-length is only used with --schedule warped "
                         "or blend, not " +
                         sched);
  if (isWarp(schedule) && (o.initialState || o.finalState))
    return Status::error(sched + " has no recurrent state: --initial-state "
                                 "and --final-state cannot be used with it");
  if (o.chunkSize && (o.formulation == FormulationChoice::Attention ||
                      o.formulation == FormulationChoice::Recurrent))
    return Status::error("--chunk-size only applies to --formulation chunked "
                         "(or auto)");

  std::vector<std::string> outs = {o.out};
  if (o.finalState)
    outs.insert(outs.end(), o.finalState->begin(), o.finalState->end());
  return checkDistinctOutputs(outs);
}

reference::Formulation resolveFormulation(const Options &o) {
  switch (o.formulation) {
  case FormulationChoice::Attention:
    return reference::Formulation::Attention;
  case FormulationChoice::Chunked:
    return reference::Formulation::Chunked;
  case FormulationChoice::Recurrent:
    return reference::Formulation::Recurrent;
  case FormulationChoice::Auto:
    break;
  }
  bool wantsState = o.initialState || o.finalState || o.chunkSize;
  return wantsState ? reference::Formulation::Chunked
                    : reference::Formulation::Attention;
}

struct PendingFile {
  std::string path, temp;
  std::vector<int64_t> shape;
  std::vector<double> data;
};

/// Fails on values float32 cannot hold (overflow in the computation or in
/// the conversion).
Status checkFinite(const char *what, const std::vector<double> &data) {
  for (double x : data)
    if (!std::isfinite(static_cast<float>(x)))
      return Status::error(std::string("the computed ") + what +
                           " is not finite in float32 (overflow); the "
                           "inputs are too large for this power");
  return Status::success();
}

/// What a run killed before its commit finished left next to `target`
/// (`<target>.sympow-run-<pid>.tmp` / `.old` of a process that is gone):
/// temporaries are removed; a kept old file whose target is missing (killed
/// between its renames) is put back.
void removeStaleTemporaries(const std::string &target) {
  size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "." : target.substr(0, slash);
  std::string base =
      slash == std::string::npos ? target : target.substr(slash + 1);
  std::string prefix = base + ".sympow-run-";
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return;
  std::vector<std::string> stale;
  while (struct dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::string rest = name.substr(prefix.size()); // <pid>.tmp | <pid>.old
    size_t dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 ||
        rest.find_first_not_of("0123456789") != dot)
      continue;
    std::string kind = rest.substr(dot);
    if (kind != ".tmp" && kind != ".old")
      continue;
    long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() ||
        !(::kill(pid_t(pid), 0) != 0 && errno == ESRCH))
      continue; // a run still going
    stale.push_back(name);
  }
  ::closedir(d);
  for (const std::string &name : stale) {
    std::string path = dir + "/" + name;
    struct stat st;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".old") == 0 &&
        ::lstat(target.c_str(), &st) != 0 && errno == ENOENT)
      std::rename(path.c_str(), target.c_str());
    else
      std::remove(path.c_str());
  }
}

/// Writes every file under a temporary name in its target's directory, then
/// renames them all; all or nothing: on any failure the temporaries are
/// removed and every output that existed before is left as it was (an
/// existing target is kept under a hard link until every rename succeeded,
/// and put back if one fails).
Status writeAll(std::vector<PendingFile> &files) {
  std::string suffix = ".sympow-run-" + std::to_string(::getpid());
  std::vector<std::string> backups(files.size());
  std::vector<bool> renamed(files.size(), false);
  auto rollback = [&] {
    for (size_t i = 0; i < files.size(); ++i) {
      if (renamed[i]) {
        if (!backups[i].empty())
          std::rename(backups[i].c_str(), files[i].path.c_str());
        else
          std::remove(files[i].path.c_str());
      } else if (!backups[i].empty()) {
        std::remove(backups[i].c_str());
      }
      if (!files[i].temp.empty())
        std::remove(files[i].temp.c_str());
    }
  };
  auto fail = [&](size_t i, const std::string &why) {
    rollback();
    return Status::error("cannot write '" + files[i].path + "'" +
                         (why.empty() ? std::string() : ": " + why));
  };
  for (const PendingFile &f : files)
    removeStaleTemporaries(f.path);
  // A target that exists must be something a file can replace.
  for (size_t i = 0; i < files.size(); ++i) {
    struct stat st;
    if (::lstat(files[i].path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return fail(i, "it is a directory");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    std::string temp = files[i].path + suffix + ".tmp";
    npy::Status st =
        npy::writeNpy(temp, files[i].shape, files[i].data, npy::DType::Float32);
    if (st.isError()) {
      std::remove(temp.c_str());
      // writeNpy names the temporary: keep only why.
      const std::string &m = st.message();
      size_t why = m.find("': ");
      return fail(i, why == std::string::npos ? m : m.substr(why + 3));
    }
    files[i].temp = temp;
  }
  // Keep what each target holds now until every rename succeeded.
  for (size_t i = 0; i < files.size(); ++i) {
    struct stat st;
    if (::lstat(files[i].path.c_str(), &st) != 0)
      continue;
    std::string backup = files[i].path + suffix + ".old";
    if (::link(files[i].path.c_str(), backup.c_str()) != 0)
      return fail(i, std::string("cannot keep the old file: ") +
                         std::strerror(errno));
    backups[i] = backup;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(files[i].temp.c_str(), files[i].path.c_str()) != 0)
      return fail(i, std::strerror(errno));
    renamed[i] = true;
    files[i].temp.clear();
  }
  for (const std::string &b : backups)
    if (!b.empty())
      std::remove(b.c_str());
  return Status::success();
}

} // namespace

Status runLayer(const Options &o) {
  Schedule schedule =
      o.schedule ? *o.schedule
      : o.beta   ? Schedule::Learned
      : (o.ropeBase || o.ropeScale || o.ropeDims || o.ropeLayout)
          ? Schedule::Uniform
          : Schedule::None;
  if (Status st = checkFlags(o, schedule); st.isError())
    return st;

  LayerInputs in;
  struct {
    const std::string *path;
    Tensor *into;
  } required[] = {{&o.q, &in.q}, {&o.k, &in.k}, {&o.v, &in.v}};
  for (auto &r : required) {
    Result<Tensor> t = load(*r.path);
    if (t.isError())
      return t.status();
    *r.into = std::move(t.value());
  }
  struct {
    const std::optional<std::string> *path;
    std::optional<Tensor> *into;
  } optional[] = {
      {&o.logG, &in.logG}, {&o.logGamma, &in.logGamma}, {&o.beta, &in.beta}};
  for (auto &r : optional) {
    if (!*r.path)
      continue;
    Result<Tensor> t = load(**r.path);
    if (t.isError())
      return t.status();
    *r.into = std::move(t.value());
  }
  if (o.initialState) {
    reference::State s;
    Tensor *parts[] = {&s.S, &s.Z, &s.c};
    for (int i = 0; i < 3; ++i) {
      Result<Tensor> t = load((*o.initialState)[i]);
      if (t.isError())
        return t.status();
      *parts[i] = std::move(t.value());
    }
    in.initialState = std::move(s);
  }

  Result<reference::Shape> shape = reference::inferShape(in);
  if (shape.isError())
    return shape.status();
  LayerDesc desc;
  desc.shape = shape.value();
  desc.power = *o.power;
  desc.scale = o.scale;
  if (o.ropeBase)
    desc.rotary.base = *o.ropeBase;
  if (o.ropeScale)
    desc.rotary.rateScale = *o.ropeScale;
  if (o.ropeDims) {
    // 0 would mean "d" inside the reference; on the command line it is an
    // error like any other r outside [2, d].
    if (*o.ropeDims == 0)
      return Status::error("--rope-dims 0 is not allowed: r must be even and "
                           "between 2 and d = " +
                           std::to_string(desc.shape.d));
    desc.rotary.dims = *o.ropeDims;
  }
  if (o.ropeLayout)
    desc.rotary.layout = *o.ropeLayout;
  desc.schedule = schedule;
  desc.warpLength = o.warpLength;
  desc.hasLogG = o.logG.has_value();
  desc.hasLogGamma = o.logGamma.has_value();
  desc.formulation = resolveFormulation(o);
  if (desc.formulation == reference::Formulation::Chunked)
    desc.chunkSize = o.chunkSize ? *o.chunkSize : 64;
  desc.inputType = o.dtype;
  desc.wantFinalState = o.finalState.has_value();

  // Every backend gets inputs the reference's validation accepts.
  if (Status st = reference::validate(desc, in); st.isError())
    return st;
  Result<reference::LayerOutputs> out = o.backend == "reference"
                                            ? reference::forward(desc, in)
                                            : runOnKernels(o.backend, desc, in);
  if (out.isError())
    return out.status();

  std::vector<PendingFile> files;
  if (Status st = checkFinite("y", out->y.data); st.isError())
    return st;
  files.push_back({o.out, "", out->y.shape, std::move(out->y.data)});
  if (o.finalState) {
    reference::State &fs = *out->finalState;
    Tensor *parts[] = {&fs.S, &fs.Z, &fs.c};
    const char *names[] = {"final state S", "final state Z", "final state c"};
    for (int i = 0; i < 3; ++i) {
      if (Status st = checkFinite(names[i], parts[i]->data); st.isError())
        return st;
      files.push_back(
          {(*o.finalState)[i], "", parts[i]->shape, std::move(parts[i]->data)});
    }
  }
  return writeAll(files);
}

} // namespace sympow::run
