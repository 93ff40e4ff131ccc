//===- Header.cpp - The Python-literal header of a .npy file --------------===//
//
// A tiny parser for the one dict literal NumPy writes: string keys, a string,
// a bool and a tuple of ints. Anything else is an error, not a guess.
//
//===----------------------------------------------------------------------===//

#include "Header.h"

#include <cctype>

namespace sympow::npy::detail {

namespace {
class Parser {
public:
  explicit Parser(const std::string &text) : s(text) {}

  void skipSpace() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *w) {
    skipSpace();
    std::string word(w);
    if (s.compare(pos, word.size(), word) == 0) {
      pos += word.size();
      return true;
    }
    return false;
  }
  bool atEnd() {
    skipSpace();
    return pos >= s.size();
  }
  Result<std::string> string() {
    skipSpace();
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"'))
      return Status::error("expected a quoted string at offset " +
                           std::to_string(pos));
    char quote = s[pos++];
    size_t end = s.find(quote, pos);
    if (end == std::string::npos)
      return Status::error("unterminated string in the header");
    std::string out = s.substr(pos, end - pos);
    pos = end + 1;
    return out;
  }
  Result<std::vector<int64_t>> intTuple() {
    if (!consume('('))
      return Status::error("'shape' must be a tuple of integers");
    std::vector<int64_t> dims;
    while (!consume(')')) {
      skipSpace();
      if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos])))
        return Status::error("'shape' must be a tuple of non-negative "
                             "integers");
      int64_t v = 0;
      while (pos < s.size() &&
             std::isdigit(static_cast<unsigned char>(s[pos]))) {
        if (v > (INT64_MAX - 9) / 10)
          return Status::error("a dimension in 'shape' is too large");
        v = v * 10 + (s[pos++] - '0');
      }
      consumeWord("L"); // Python 2 longs
      dims.push_back(v);
      if (!consume(',')) {
        if (!consume(')'))
          return Status::error("'shape' must be a tuple of integers");
        if (dims.size() == 1)
          return Status::error("'shape' (n) is not a tuple; expected (n,)");
        return dims;
      }
    }
    return dims;
  }

private:
  const std::string &s;
  size_t pos = 0;
};
} // namespace

std::string printable(const std::string &s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

Result<Header> parseHeader(const std::string &text) {
  Parser p(text);
  Header h;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!p.consume('{'))
    return Status::error("the header is not a Python dict literal");
  while (!p.consume('}')) {
    Result<std::string> key = p.string();
    if (key.isError())
      return Status::error("malformed header: " + key.message());
    if (!p.consume(':'))
      return Status::error("malformed header: expected ':' after '" +
                           printable(key.value()) + "'");
    if (key.value() == "descr") {
      Result<std::string> d = p.string();
      if (d.isError())
        return Status::error("malformed header: 'descr' must be a string");
      h.descr = d.value();
      haveDescr = true;
    } else if (key.value() == "fortran_order") {
      if (p.consumeWord("True"))
        h.fortranOrder = true;
      else if (p.consumeWord("False"))
        h.fortranOrder = false;
      else
        return Status::error("malformed header: 'fortran_order' must be True "
                             "or False");
      haveOrder = true;
    } else if (key.value() == "shape") {
      Result<std::vector<int64_t>> dims = p.intTuple();
      if (dims.isError())
        return Status::error("malformed header: " + dims.message());
      h.shape = dims.value();
      haveShape = true;
    } else {
      return Status::error("malformed header: unexpected key '" +
                           printable(key.value()) + "'");
    }
    if (!p.consume(',')) {
      if (!p.consume('}'))
        return Status::error("malformed header: expected ',' or '}'");
      break;
    }
  }
  if (!p.atEnd())
    return Status::error("malformed header: text after the closing '}'");
  if (!haveDescr || !haveOrder || !haveShape)
    return Status::error(std::string("malformed header: missing key '") +
                         (!haveDescr   ? "descr"
                          : !haveOrder ? "fortran_order"
                                       : "shape") +
                         "'");
  return h;
}

std::string formatHeader(const std::string &descr,
                         const std::vector<int64_t> &shape) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    dims += ",";
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
         dims + "), }";
}

} // namespace sympow::npy::detail
