#include "abi/sdk/entry_util.h"

#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "core/base/status_macros.h"
#include "core/shape/layout_util.h"

namespace plexa::sdk::internal {

Plugin* g_plugin = nullptr;
PluginInfo* g_info = nullptr;

PLX_Error* ToError(absl::Status s) {
  if (s.ok()) return nullptr;
  auto* e = new PLX_Error;
  e->message = std::string(s.message());
  e->status = std::move(s);
  return e;
}

absl::Status NameFunction(absl::Status s, const char* fn) {
  if (s.ok() || absl::StartsWith(s.message(), fn)) return s;
  return absl::Status(s.code(), absl::StrCat(fn, ": ", s.message()));
}

absl::StatusOr<Options> ReadOptions(const PLX_NamedValue* values, size_t n,
                                    const char* fn) {
  Options out;
  if (n > 0 && values == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": ", n, " options given but the array is NULL"));
  }
  for (size_t i = 0; i < n; ++i) {
    const PLX_NamedValue& v = values[i];
    if (v.struct_size < PLX_NamedValue_STRUCT_SIZE || v.name == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": option ", i, " has a bad struct_size or a NULL name"));
    }
    OptionValue o;
    const int64_t kind = RawEnum(v.kind);
    if (kind < PLX_Value_STRING || kind > PLX_Value_FLOAT) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": option '", v.name, "' has unknown kind ", kind));
    }
    o.kind = v.kind;
    switch (v.kind) {
      case PLX_Value_STRING:
        if (v.string_value == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              fn, ": option '", v.name, "' has a NULL string value"));
        }
        o.string_value = v.string_value;
        break;
      case PLX_Value_INT64:
        o.int64_value = v.int64_value;
        break;
      case PLX_Value_BOOL:
        o.bool_value = v.bool_value;
        break;
      case PLX_Value_FLOAT:
        o.float_value = v.float_value;
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": option '", v.name, "' has unknown kind ",
                         static_cast<int>(v.kind)));
    }
    out[v.name] = std::move(o);
  }
  return out;
}

absl::StatusOr<Shape> ReadArrayShape(const PLX_ArrayShape* s, const char* fn) {
  return abi::ShapeFromAbi(s, fn);
}

absl::StatusOr<PLX_Buffer*> WrapBuffer(PLX_Client* client,
                                       std::shared_ptr<BufferSlot> slot) {
  auto h = std::make_unique<PLX_Buffer>();
  PLEXA_RETURN_IF_ERROR(h->shape.Set(slot->shape()));
  h->layout.Set(LayoutUtil::EffectiveLayout(slot->shape()));
  h->slot = std::move(slot);
  h->client = client;
  client->live_buffers.fetch_add(1);
  RegisterHandle(h.get(), HandleKind::kBuffer);
  return h.release();
}

// A wait list longer than this is taken for garbage (an uninitialized count).
constexpr size_t kMaxWaitEvents = 1 << 16;

absl::StatusOr<EventList> ReadEventList(PLX_Event* const* events, size_t n,
                                        const char* fn) {
  EventList out;
  if (n == 0) return out;
  if (events == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        fn, ": num_wait_events is ", n, " but wait_events is NULL"));
  }
  if (n > kMaxWaitEvents) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": num_wait_events ", n,
                     " is implausibly large (at most ", kMaxWaitEvents, ")"));
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string what = absl::StrCat("wait_events[", i, "]");
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(events[i], HandleKind::kEvent, fn, what.c_str()));
    out.push_back(events[i]->event);
  }
  return out;
}

absl::Status AwaitAll(const EventList& events) {
  absl::Status first;
  for (const auto& e : events) {
    absl::Status s = e->Await();
    if (first.ok()) first = std::move(s);
  }
  return first;
}

PLX_Event* WrapEvent(std::shared_ptr<Event> e) {
  auto* h = new PLX_Event{std::move(e)};
  RegisterHandle(h, HandleKind::kEvent);
  return h;
}

}  // namespace plexa::sdk::internal
