//===- Run.cpp - Executing one sympow-run invocation ----------------------===//

#include "Run.h"

#include "KernelRun.h"

#include "sympow/Npy/Npy.h"
#include "sympow/Reference/Forward.h"
#include "sympow/Reference/Validate.h"

#include <cmath>
#include <cstdio>
#include <set>
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

  std::set<std::string> outs = {o.out};
  if (o.finalState)
    for (const std::string &p : *o.finalState)
      if (!outs.insert(p).second)
        return Status::error("output file '" + p + "' is given twice");
  return Status::success();
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

/// Writes every file under a temporary name, then renames them all; on any
/// failure removes what it wrote.
Status writeAll(std::vector<PendingFile> &files) {
  std::string suffix = ".sympow-run-" + std::to_string(::getpid()) + ".tmp";
  auto cleanup = [&](size_t upTo) {
    for (size_t i = 0; i < upTo; ++i)
      std::remove(files[i].temp.c_str());
  };
  for (size_t i = 0; i < files.size(); ++i) {
    files[i].temp = files[i].path + suffix;
    npy::Status st = npy::writeNpy(files[i].temp, files[i].shape, files[i].data,
                                   npy::DType::Float32);
    if (st.isError()) {
      cleanup(i + 1);
      return Status::error("cannot write '" + files[i].path + "'");
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(files[i].temp.c_str(), files[i].path.c_str()) != 0) {
      for (size_t j = 0; j < i; ++j)
        std::remove(files[j].path.c_str());
      cleanup(files.size());
      return Status::error("cannot write '" + files[i].path + "'");
    }
  }
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
