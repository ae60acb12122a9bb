#include "runtime/core/field_alignment.hpp"

#include <flatbuffers/minireflect.h>

#include <string>

namespace mote {
namespace {

using flatbuffers::ElementaryType;
using flatbuffers::ReadScalar;
using flatbuffers::TypeTable;
using flatbuffers::uoffset_t;

const TypeTable* referenced(const TypeTable* table, flatbuffers::TypeCode code) {
  return code.sequence_ref >= 0 ? table->type_refs[code.sequence_ref]() : nullptr;
}

// The alignment a value of this type needs in the buffer: its size for a
// scalar, the largest member's for a struct, an offset's for the rest.
size_t required_alignment(ElementaryType type, const TypeTable* table) {
  if (type != flatbuffers::ET_SEQUENCE || table->st != flatbuffers::ST_STRUCT) {
    return flatbuffers::InlineSize(type, table);
  }
  size_t align = 1;
  for (size_t i = 0; i < table->num_elems; ++i) {
    const flatbuffers::TypeCode code = table->type_codes[i];
    size_t a = required_alignment(static_cast<ElementaryType>(code.base_type), referenced(table, code));
    if (a > align) align = a;
  }
  return align;
}

// A walk over every table reachable from the root (vectors of unions aside:
// neither schema has them), by the generated type
// tables (flatc --reflect-names). Written here rather than with minireflect's
// IterateFlatBuffer, which calls through a null type reference on a union
// whose type is NONE but whose value is set (a file the verifier accepts).
class AlignmentWalk {
 public:
  explicit AlignmentWalk(const uint8_t* base) : base_(base) {}

  void table(const uint8_t* object, const TypeTable* type) {
    const auto* t = reinterpret_cast<const flatbuffers::Table*>(object);
    for (size_t i = 0; i < type->num_elems && status_.ok(); ++i) {
      const flatbuffers::TypeCode code = type->type_codes[i];
      const auto kind = static_cast<ElementaryType>(code.base_type);
      const TypeTable* ref = referenced(type, code);
      const char* name = type->names ? type->names[i] : "?";
      const uint8_t* value = t->GetAddressOf(flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(i)));
      if (!value) continue;
      if (code.is_repeating) {
        vector(value + ReadScalar<uoffset_t>(value), kind, ref, name);
      } else if (kind != flatbuffers::ET_SEQUENCE) {
        check(value, flatbuffers::InlineSize(kind, ref), name);
      } else if (ref->st == flatbuffers::ST_STRUCT) {
        check(value, required_alignment(kind, ref), name);
      } else if (ref->st == flatbuffers::ST_TABLE) {
        table(value + ReadScalar<uoffset_t>(value), ref);
      } else if (ref->st == flatbuffers::ST_UNION && i > 0) {
        // The union's type is the field before it (flatc's NAME_type).
        const uint8_t* tag = t->GetAddressOf(flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(i - 1)));
        union_member(value + ReadScalar<uoffset_t>(value), tag ? ReadScalar<uint8_t>(tag) : 0, ref);
      }
    }
  }

  const Status& status() const { return status_; }

 private:
  void vector(const uint8_t* vec, ElementaryType kind, const TypeTable* ref, const char* name) {
    const uoffset_t count = ReadScalar<uoffset_t>(vec);
    const uint8_t* data = vec + sizeof(uoffset_t);
    // Elements are packed, so the first one's alignment decides them all.
    if (count > 0) check(data, required_alignment(kind, ref), name);
    if (kind != flatbuffers::ET_SEQUENCE || ref->st != flatbuffers::ST_TABLE) return;
    for (uoffset_t k = 0; k < count && status_.ok(); ++k) {
      const uint8_t* element = data + k * sizeof(uoffset_t);
      table(element + ReadScalar<uoffset_t>(element), ref);
    }
  }

  void union_member(const uint8_t* object, uint8_t tag, const TypeTable* type) {
    // flatc lists the members with their tags in `values`, or leaves it
    // null when the tags are 0 (NONE), 1, 2, ... An unknown tag (a newer
    // writer) is left to the op's own checks.
    size_t index = tag;
    if (type->values) {
      for (index = 0; index < type->num_elems && type->values[index] != tag; ++index) {
      }
    }
    if (tag == 0 || index >= type->num_elems) return;
    const flatbuffers::TypeCode code = type->type_codes[index];
    if (code.base_type != flatbuffers::ET_SEQUENCE || code.sequence_ref < 0) return;  // a string member
    const TypeTable* member = referenced(type, code);
    if (member->st == flatbuffers::ST_TABLE) table(object, member);  // (a struct member has no vectors)
  }

  void check(const uint8_t* value, size_t align, const char* name) {
    const size_t offset = static_cast<size_t>(value - base_);
    if (status_.ok() && align > 1 && offset % align != 0) {
      status_ = invalid_model(std::string("field '") + name + "' at byte " + std::to_string(offset) + " is not " +
                              std::to_string(align) + "-byte aligned (corrupt or hand-edited file)");
    }
  }

  const uint8_t* base_;
  Status status_;
};

}  // namespace

Status verify_field_alignment(const uint8_t* bytes, const TypeTable* root) {
  AlignmentWalk walk(bytes);
  walk.table(bytes + ReadScalar<uoffset_t>(bytes), root);
  return walk.status();
}

}  // namespace mote
