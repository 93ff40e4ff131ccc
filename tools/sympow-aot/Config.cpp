//===- Config.cpp - Variant sets from a config file -----------------------===//

#include "Config.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace sympow::aot;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A grid value as it appears in a variant string.
std::optional<std::string> scalarText(const llvm::json::Value &value) {
  if (auto s = value.getAsString())
    return s->str();
  // json::Value::getAsInteger lets a double of 2^63 through its range check
  // and converts it (undefined behaviour): numbers that large stay doubles.
  std::optional<double> number = value.getAsNumber();
  if (number && std::abs(*number) < 0x1p63)
    if (auto i = value.getAsInteger())
      return std::to_string(*i);
  if (auto d = number) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::json::Value(*d);
    return text;
  }
  return std::nullopt;
}

} // namespace

llvm::Expected<Config> sympow::aot::readConfig(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read config " + path + ": " +
                buffer.getError().message());
  return parseConfig((*buffer)->getBuffer(), path);
}

llvm::Expected<Config> sympow::aot::parseConfig(llvm::StringRef text,
                                                llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return fail(path +
                ": not valid JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return fail(path + ": the top level must be an object with \"sets\"");

  Config config;
  for (const auto &[key, value] : *root)
    if (key != "arch" && key != "sets")
      return fail(path + ": unknown key \"" + key.str() +
                  "\" (allowed: arch, sets)");
  if (const llvm::json::Value *arch = root->get("arch")) {
    const llvm::json::Array *list = arch->getAsArray();
    if (!list)
      return fail(path + ": \"arch\" must be a list like [\"sm_80\"]");
    if (list->empty())
      return fail(path + ": \"arch\" must not be empty (leave it out for "
                         "the default sm_80, sm_90a)");
    for (const llvm::json::Value &a : *list) {
      auto name = a.getAsString();
      if (!name)
        return fail(path + ": \"arch\" entries must be strings");
      config.archs.push_back(name->str());
    }
  }
  const llvm::json::Array *sets = root->getArray("sets");
  if (!sets || sets->empty())
    return fail(path + ": \"sets\" must be a non-empty list of variant sets");

  for (size_t i = 0; i < sets->size(); ++i) {
    const llvm::json::Object *set = (*sets)[i].getAsObject();
    std::string where = (path + ": sets[" + llvm::Twine(i) + "]").str();
    if (!set)
      return fail(where + " must be an object");
    if (auto name = set->getString("name"))
      where += " (" + name->str() + ")";
    for (const auto &[key, value] : *set)
      if (key != "name" && key != "common" && key != "grid" &&
          key != "variants")
        return fail(where + ": unknown key \"" + key.str() +
                    "\" (allowed: name, common, grid, variants)");
    std::string common;
    if (const llvm::json::Value *c = set->get("common")) {
      auto text = c->getAsString();
      if (!text)
        return fail(where + ": \"common\" must be a variant string");
      common = text->str();
    }
    auto withCommon = [&](const std::string &text) {
      if (common.empty())
        return text;
      return text.empty() ? common : common + "," + text;
    };
    // The set is each of its variants (or just `common`) combined with
    // every point of its grid (if any).
    std::vector<std::string> listed;
    if (const llvm::json::Value *v = set->get("variants")) {
      const llvm::json::Array *list = v->getAsArray();
      if (!list || list->empty())
        return fail(where + ": \"variants\" must be a non-empty list of "
                            "strings");
      for (size_t j = 0; j < list->size(); ++j) {
        auto text = (*list)[j].getAsString();
        if (!text)
          return fail(where + ": variants[" + llvm::Twine(j) +
                      "] must be a string");
        listed.push_back(text->str());
      }
    } else if (!set->get("grid") && common.empty()) {
      return fail(where + ": no variants (give \"variants\", \"grid\" or "
                          "\"common\")");
    } else {
      listed.push_back("");
    }
    std::vector<std::string> combos = {""};
    if (const llvm::json::Value *g = set->get("grid")) {
      const llvm::json::Object *grid = g->getAsObject();
      if (!grid)
        return fail(where + ": \"grid\" must map keys to lists of values");
      for (const auto &[key, values] : *grid) {
        const llvm::json::Array *list = values.getAsArray();
        if (!list || list->empty())
          return fail(where + ": grid \"" + key.str() +
                      "\" must be a non-empty list");
        if (combos.size() * list->size() > kMaxConfigVariants)
          return fail(where + ": grid \"" + key.str() + "\" makes more than " +
                      llvm::Twine(kMaxConfigVariants) +
                      " variants (split the set)");
        std::vector<std::string> next;
        for (const std::string &prefix : combos)
          for (const llvm::json::Value &value : *list) {
            std::optional<std::string> text = scalarText(value);
            if (!text)
              return fail(where + ": grid \"" + key.str() +
                          "\" values must be strings or numbers");
            next.push_back(prefix + (prefix.empty() ? "" : ",") + key.str() +
                           "=" + *text);
          }
        combos = std::move(next);
      }
    }
    if (config.variants.size() + listed.size() * combos.size() >
        kMaxConfigVariants)
      return fail(where + ": the config makes more than " +
                  llvm::Twine(kMaxConfigVariants) + " variants");
    for (const std::string &variant : listed)
      for (const std::string &combo : combos) {
        std::string text = variant;
        if (!combo.empty())
          text += (text.empty() ? "" : ",") + combo;
        config.variants.push_back({withCommon(text), where});
      }
  }
  return config;
}
