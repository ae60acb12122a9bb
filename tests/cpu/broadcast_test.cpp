// The broadcast iterator of the elementwise kernels: how plans collapse the
// common layouts, and that segments of any chunk address the right elements.
#include "runtime/cpu/broadcast.hpp"

#include <gtest/gtest.h>

#include "runtime/core/shape_util.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::cpu {
namespace {

struct Expected {
  Shape dims;
  std::vector<int64_t> a_strides, b_strides;
};

void expect_plan(const Shape& out, const Shape& a, const Shape& b, const Expected& e) {
  SCOPED_TRACE(shape_to_string(a) + " with " + shape_to_string(b));
  BroadcastPlan plan = plan_broadcast(out, {a, b});
  EXPECT_EQ(plan.dims, e.dims);
  EXPECT_EQ(plan.strides[0], e.a_strides);
  EXPECT_EQ(plan.strides[1], e.b_strides);
}

TEST(BroadcastPlan, CollapsesCommonLayoutsToFewRows) {
  // Same shapes: one row.
  expect_plan({2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {{24}, {1}, {1}});
  // A scalar either side: one row, the scalar repeated.
  expect_plan({2, 3, 4}, {2, 3, 4}, {}, {{24}, {1}, {0}});
  expect_plan({2, 3, 4}, {1}, {2, 3, 4}, {{24}, {0}, {1}});
  // Channel bias: rows of H*W, one bias element per row.
  expect_plan({2, 3, 4, 5}, {2, 3, 4, 5}, {3, 1, 1}, {{2, 3, 20}, {60, 20, 1}, {0, 1, 0}});
  // Row bias: rows of K, the bias walked from its start every row.
  expect_plan({6, 7}, {6, 7}, {7}, {{6, 7}, {7, 1}, {0, 1}});
  // Size-1 dimensions vanish; per-(N, C) scale of an SE block.
  expect_plan({2, 3, 4, 5}, {2, 3, 4, 5}, {2, 3, 1, 1}, {{6, 20}, {20, 1}, {1, 0}});
  // Outer product.
  expect_plan({3, 5}, {3, 1}, {1, 5}, {{3, 5}, {1, 0}, {0, 1}});
  // A scalar output, and one of all ones.
  expect_plan({}, {}, {}, {{1}, {0}, {0}});
  expect_plan({1, 1}, {1}, {1, 1}, {{1}, {0}, {0}});
}

// Every chunk [begin, end), also those starting and ending mid-row, is
// covered in order by segments whose offsets match the index arithmetic.
TEST(BroadcastPlan, SegmentsAddressEveryElementOfAnyChunk) {
  const Shape out = {2, 3, 4, 5};
  const std::vector<Shape> inputs = {{3, 1, 5}, {2, 1, 4, 1}, {5}};
  BroadcastPlan plan = plan_broadcast(out, inputs);
  std::vector<std::vector<int64_t>> strides;
  for (const Shape& s : inputs) strides.push_back(broadcast_strides(s, out));
  const int64_t numel = shape_numel(out);
  for (int64_t begin : {int64_t{0}, int64_t{3}, int64_t{17}, int64_t{59}}) {
    for (int64_t end : {begin + 1, begin + 7, numel}) {
      int64_t next = begin;
      for_each_segment(plan, begin, end, [&](const BroadcastSegment& s) {
        ASSERT_EQ(s.out_offset, next);
        ASSERT_GT(s.length, 0);
        std::vector<int64_t> index;
        for (int64_t i = 0; i < s.length; ++i) {
          reference::unravel_index(s.out_offset + i, out, index);
          for (int k = 0; k < 3; ++k) {
            int64_t expected = 0;
            for (size_t d = 0; d < index.size(); ++d) expected += index[d] * strides[k][d];
            ASSERT_EQ(s.offsets[k] + i * plan.inner_step(k), expected)
                << "input " << k << " element " << s.out_offset + i;
          }
        }
        next += s.length;
      });
      EXPECT_EQ(next, end);
    }
  }
}

}  // namespace
}  // namespace mote::cpu
