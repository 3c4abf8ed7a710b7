// The reducer matcher, for the toolkit's code: core/ir/reducer.h is the one
// implementation (passes use it too); these names keep the backends'
// spelling.
#ifndef PLEXA_PLUGINS_COMMON_REDUCER_H_
#define PLEXA_PLUGINS_COMMON_REDUCER_H_

#include "core/ir/reducer.h"

namespace plexa::backend {

using ::plexa::MatchedReducer;
using ::plexa::MatchParameterOperands;
using ::plexa::MatchReducer;

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_REDUCER_H_
