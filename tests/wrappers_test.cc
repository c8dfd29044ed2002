// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The compaction filter and merge operator wrappers
// (compaction_filter/wrappers.h), without a DB: on plain values (anything but
// a compaction pointer) they hand the wrapped filter or operator exactly what
// they were given and return exactly what it answers; without a wrapped one
// they refuse strict options and fail merges. compaction_pointer_test.cc and
// the system tests cover what they do with pointers.
#include "plugin/hybridkv/compaction_filter/wrappers.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "rocksdb/convenience.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// What a filter saw, and what it answers: kRemove for keys starting with 'r',
// kChangeValue ("changed:" + value) for 'c', kRemoveAndSkipUntil "z" for 's',
// kKeep otherwise.
struct Seen {
  int level = -1;
  std::string key;
  CompactionFilter::ValueType type = CompactionFilter::ValueType::kBlobIndex;
  std::string value;
  bool had_value = false;
  int calls = 0;
  int blob_by_key_calls = 0;
};

class RecordingFilter : public CompactionFilter {
 public:
  explicit RecordingFilter(Seen* seen, bool ignore_snapshots = true)
      : seen_(seen), ignore_snapshots_(ignore_snapshots) {}
  const char* Name() const override { return "RecordingFilter"; }
  bool IgnoreSnapshots() const override { return ignore_snapshots_; }
  Decision FilterV3(int level, const Slice& key, ValueType value_type,
                    const Slice* existing_value, const WideColumns*,
                    std::string* new_value,
                    std::vector<std::pair<std::string, std::string>>*,
                    std::string* skip_until) const override {
    seen_->calls++;
    seen_->level = level;
    seen_->key = key.ToString();
    seen_->type = value_type;
    seen_->had_value = existing_value != nullptr;
    seen_->value = existing_value ? existing_value->ToString() : "";
    switch (key.empty() ? 'k' : key[0]) {
      case 'r':
        return Decision::kRemove;
      case 'c':
        *new_value = "changed:" + seen_->value;
        return Decision::kChangeValue;
      case 's':
        *skip_until = "z";
        return Decision::kRemoveAndSkipUntil;
      default:
        return Decision::kKeep;
    }
  }
  Decision FilterBlobByKey(int level, const Slice& key, std::string*,
                           std::string*) const override {
    seen_->blob_by_key_calls++;
    seen_->level = level;
    seen_->key = key.ToString();
    return Decision::kUndetermined;
  }

 private:
  Seen* const seen_;
  const bool ignore_snapshots_;
};

class RecordingFilterFactory : public CompactionFilterFactory {
 public:
  explicit RecordingFilterFactory(Seen* seen, bool create = true)
      : seen_(seen), create_(create) {}
  const char* Name() const override { return "RecordingFilterFactory"; }
  bool ShouldFilterTableFileCreation(
      TableFileCreationReason reason) const override {
    return reason == TableFileCreationReason::kFlush;
  }
  std::unique_ptr<CompactionFilter> CreateCompactionFilter(
      const CompactionFilter::Context& context) override {
    contexts++;
    last_manual_ = context.is_manual_compaction;
    if (!create_) return nullptr;
    return std::make_unique<RecordingFilter>(seen_);
  }
  int contexts = 0;
  bool last_manual_ = false;

 private:
  Seen* const seen_;
  const bool create_;
};

CompactionFilter::Context FilterContext() {
  CompactionFilter::Context context;
  context.is_full_compaction = false;
  context.is_manual_compaction = true;
  context.column_family_id = 0;
  context.reason = TableFileCreationReason::kCompaction;
  return context;
}

// Runs `filter` on one plain value, the way compactions call it.
CompactionFilter::Decision FilterOne(const CompactionFilter& filter,
                                     const std::string& key,
                                     const std::string& value,
                                     std::string* new_value,
                                     std::string* skip_until) {
  const Slice v(value);
  std::vector<std::pair<std::string, std::string>> columns;
  return filter.FilterV3(3, key, CompactionFilter::ValueType::kValue, &v,
                         nullptr, new_value, &columns, skip_until);
}

TEST(WrappersTest, FilterHandsPlainValuesThroughUnchanged) {
  Seen seen;
  auto inner = std::make_shared<RecordingFilterFactory>(&seen);
  HybridKVCompactionFilterFactory factory(inner);
  EXPECT_STREQ(factory.Name(), kCompactionFilterId);
  EXPECT_EQ(factory.Inner(), inner.get());
  EXPECT_TRUE(
      factory.ShouldFilterTableFileCreation(TableFileCreationReason::kFlush));
  EXPECT_FALSE(factory.ShouldFilterTableFileCreation(
      TableFileCreationReason::kCompaction));

  std::unique_ptr<CompactionFilter> filter =
      factory.CreateCompactionFilter(FilterContext());
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(inner->contexts, 1);
  EXPECT_TRUE(inner->last_manual_);
  EXPECT_STREQ(filter->Name(), "RecordingFilter");
  EXPECT_TRUE(filter->IgnoreSnapshots());

  // Plain values of every kind, including one that starts with the
  // compaction pointer's tag byte and binary ones.
  const std::vector<std::string> values = {
      "",
      "v",
      std::string(300, 'm'),
      std::string("\xC1", 1),
      std::string("\xC1\x00\x01garbage", 10),
      std::string(40, '\0')};
  for (const std::string& value : values) {
    for (std::string key : {"keep", "remove", "change", "skip"}) {
      std::string new_value, skip_until;
      const auto decision =
          FilterOne(*filter, key, value, &new_value, &skip_until);
      EXPECT_EQ(seen.key, key);
      EXPECT_EQ(seen.level, 3);
      EXPECT_EQ(seen.type, CompactionFilter::ValueType::kValue);
      ASSERT_TRUE(seen.had_value);
      EXPECT_EQ(seen.value, value) << key;
      switch (key[0]) {
        case 'k':
          EXPECT_EQ(decision, CompactionFilter::Decision::kKeep);
          break;
        case 'r':
          EXPECT_EQ(decision, CompactionFilter::Decision::kRemove);
          break;
        case 'c':
          EXPECT_EQ(decision, CompactionFilter::Decision::kChangeValue);
          EXPECT_EQ(new_value, "changed:" + value);
          break;
        case 's':
          EXPECT_EQ(decision, CompactionFilter::Decision::kRemoveAndSkipUntil);
          EXPECT_EQ(skip_until, "z");
          break;
      }
    }
  }
  EXPECT_EQ(seen.calls, static_cast<int>(values.size() * 4));

  // Merge operands and blob indexes are not resolved: handed on as they are.
  const Slice operand("operand");
  std::string new_value, skip_until;
  std::vector<std::pair<std::string, std::string>> columns;
  EXPECT_EQ(
      filter->FilterV3(1, "change", CompactionFilter::ValueType::kMergeOperand,
                       &operand, nullptr, &new_value, &columns, &skip_until),
      CompactionFilter::Decision::kChangeValue);
  EXPECT_EQ(seen.type, CompactionFilter::ValueType::kMergeOperand);
  EXPECT_EQ(new_value, "changed:operand");
  EXPECT_EQ(filter->FilterBlobByKey(2, "blob-key", &new_value, &skip_until),
            CompactionFilter::Decision::kUndetermined);
  EXPECT_EQ(seen.blob_by_key_calls, 1);
  EXPECT_EQ(seen.key, "blob-key");
}

TEST(WrappersTest, FilterFactoryWithoutAFilterCreatesNone) {
  Seen seen;
  auto inner = std::make_shared<RecordingFilterFactory>(&seen, false);
  HybridKVCompactionFilterFactory factory(inner);
  EXPECT_EQ(factory.CreateCompactionFilter(FilterContext()), nullptr);
  EXPECT_EQ(inner->contexts, 1);

  HybridKVCompactionFilterFactory empty;
  EXPECT_EQ(empty.CreateCompactionFilter(FilterContext()), nullptr);
  EXPECT_FALSE(
      empty.ShouldFilterTableFileCreation(TableFileCreationReason::kFlush));
  EXPECT_FALSE(empty.ShouldFilterTableFileCreation(
      TableFileCreationReason::kCompaction));
}

// A caller-owned filter (ColumnFamilyOptions::compaction_filter) adapted to
// a factory: compactions only, the same filter for each, left to its owner.
TEST(WrappersTest, SharedFilterFactoryWrapsTheCallersFilter) {
  Seen seen;
  RecordingFilter shared(&seen, /*ignore_snapshots=*/false);
  std::shared_ptr<CompactionFilterFactory> factory =
      NewSharedCompactionFilterFactory(&shared);
  EXPECT_TRUE(factory->ShouldFilterTableFileCreation(
      TableFileCreationReason::kCompaction));
  EXPECT_FALSE(
      factory->ShouldFilterTableFileCreation(TableFileCreationReason::kFlush));
  EXPECT_FALSE(
      factory->ShouldFilterTableFileCreation(TableFileCreationReason::kMisc));
  for (int i = 0; i < 2; ++i) {
    std::unique_ptr<CompactionFilter> filter =
        factory->CreateCompactionFilter(FilterContext());
    ASSERT_NE(filter, nullptr);
    EXPECT_STREQ(filter->Name(), "RecordingFilter");
    EXPECT_FALSE(filter->IgnoreSnapshots());
    std::string new_value, skip_until;
    EXPECT_EQ(FilterOne(*filter, "change", "x", &new_value, &skip_until),
              CompactionFilter::Decision::kChangeValue);
    EXPECT_EQ(new_value, "changed:x");
  }  // destroying the wrapper leaves `shared` alone
  EXPECT_EQ(seen.calls, 2);
}

// A merge operator that records its input and answers with its operands
// joined onto the existing value, or with the existing value itself (a Slice
// into it) when the only operand is "same".
class RecordingMerge : public MergeOperator {
 public:
  const char* Name() const override { return "RecordingMerge"; }
  bool FullMergeV3(const MergeOperationInputV3& in,
                   MergeOperationOutputV3* out) const override {
    calls++;
    key = in.key.ToString();
    const Slice* existing = std::get_if<Slice>(&in.existing_value);
    had_existing = existing != nullptr;
    std::string result = existing ? existing->ToString() : "<none>";
    if (existing && in.operand_list.size() == 1 &&
        in.operand_list[0] == "same") {
      out->new_value = *existing;
      return true;
    }
    for (const Slice& op : in.operand_list) result += "," + op.ToString();
    out->new_value = result;
    return key != "fail";
  }
  bool PartialMerge(const Slice&, const Slice& left, const Slice& right,
                    std::string* new_value, Logger*) const override {
    *new_value = left.ToString() + "+" + right.ToString();
    return true;
  }
  bool PartialMergeMulti(const Slice&, const std::deque<Slice>& operands,
                         std::string* new_value, Logger*) const override {
    *new_value = std::to_string(operands.size());
    return operands.size() < 3;
  }
  bool AllowSingleOperand() const override { return true; }
  bool ShouldMerge(const std::vector<Slice>& operands) const override {
    return operands.size() >= 2;
  }
  mutable int calls = 0;
  mutable std::string key;
  mutable bool had_existing = false;
};

TEST(WrappersTest, MergeHandsPlainValuesThroughUnchanged) {
  auto inner = std::make_shared<RecordingMerge>();
  HybridKVMergeOperator merge(inner);
  EXPECT_STREQ(merge.Name(), kMergeOperatorId);
  EXPECT_EQ(merge.Inner(), inner.get());

  // The input holds its key by reference.
  const Slice key("key"), fail_key("fail");
  const std::vector<Slice> operands = {"a", "b"};
  for (const std::string& existing :
       {std::string("base"), std::string(), std::string("\xC1", 1),
        std::string(500, 'm')}) {
    MergeOperator::MergeOperationInputV3 in(key, Slice(existing), operands,
                                            nullptr);
    MergeOperator::MergeOperationOutputV3 out;
    ASSERT_TRUE(merge.FullMergeV3(in, &out));
    EXPECT_EQ(inner->key, "key");
    EXPECT_TRUE(inner->had_existing);
    ASSERT_TRUE(std::holds_alternative<std::string>(out.new_value));
    EXPECT_EQ(std::get<std::string>(out.new_value), existing + ",a,b");
  }

  // No existing value.
  MergeOperator::MergeOperationInputV3 none(key, {}, operands, nullptr);
  MergeOperator::MergeOperationOutputV3 out;
  ASSERT_TRUE(merge.FullMergeV3(none, &out));
  EXPECT_FALSE(inner->had_existing);
  EXPECT_EQ(std::get<std::string>(out.new_value), "<none>,a,b");

  // A result that is the existing value itself stays a Slice into it: only a
  // resolved pointer's value, which the wrapper owns, must be copied.
  const std::string base = "base";
  const std::vector<Slice> same = {"same"};
  MergeOperator::MergeOperationInputV3 in_same(key, Slice(base), same, nullptr);
  MergeOperator::MergeOperationOutputV3 out_same;
  ASSERT_TRUE(merge.FullMergeV3(in_same, &out_same));
  ASSERT_TRUE(std::holds_alternative<Slice>(out_same.new_value));
  EXPECT_EQ(std::get<Slice>(out_same.new_value).data(), base.data());

  // The inner operator's failure is the wrapper's.
  MergeOperator::MergeOperationInputV3 in_fail(fail_key, Slice(base), operands,
                                               nullptr);
  EXPECT_FALSE(merge.FullMergeV3(in_fail, &out));
  EXPECT_EQ(inner->calls, 7);

  std::string partial;
  EXPECT_TRUE(merge.PartialMerge("key", "l", "r", &partial, nullptr));
  EXPECT_EQ(partial, "l+r");
  EXPECT_TRUE(merge.PartialMergeMulti("key", {Slice("a"), Slice("b")}, &partial,
                                      nullptr));
  EXPECT_EQ(partial, "2");
  EXPECT_FALSE(merge.PartialMergeMulti(
      "key", {Slice("a"), Slice("b"), Slice("c")}, &partial, nullptr));
  EXPECT_TRUE(merge.AllowSingleOperand());
  EXPECT_FALSE(merge.ShouldMerge({Slice("a")}));
  EXPECT_TRUE(merge.ShouldMerge({Slice("a"), Slice("b")}));
}

TEST(WrappersTest, MergeWithoutAnInnerOperatorFailsTheMerge) {
  HybridKVMergeOperator empty;
  const Slice key("key");
  const std::vector<Slice> operands = {"a"};
  MergeOperator::MergeOperationInputV3 in(key, Slice("base"), operands,
                                          nullptr);
  MergeOperator::MergeOperationOutputV3 out;
  EXPECT_FALSE(empty.FullMergeV3(in, &out));
  std::string partial;
  EXPECT_FALSE(empty.PartialMerge("key", "l", "r", &partial, nullptr));
  EXPECT_FALSE(empty.AllowSingleOperand());
}

// Strict option parsing refuses a wrapper with nothing inside; RocksDB's
// lenient re-read of its own OPTIONS file accepts it.
TEST(WrappersTest, PrepareOptionsRefusesAMissingInnerOnlyWhenStrict) {
  ConfigOptions strict;
  strict.ignore_unsupported_options = false;
  ConfigOptions lenient;
  lenient.ignore_unsupported_options = true;

  HybridKVCompactionFilterFactory empty_filter;
  Status s = empty_filter.PrepareOptions(strict);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("option 'inner' is empty"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find(kCompactionFilterId), std::string::npos);
  EXPECT_OK(empty_filter.PrepareOptions(lenient));

  HybridKVMergeOperator empty_merge;
  s = empty_merge.PrepareOptions(strict);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(kMergeOperatorId), std::string::npos);
  EXPECT_OK(empty_merge.PrepareOptions(lenient));

  Seen seen;
  HybridKVCompactionFilterFactory filter(
      std::make_shared<RecordingFilterFactory>(&seen));
  EXPECT_OK(filter.PrepareOptions(strict));
  HybridKVMergeOperator merge(std::make_shared<RecordingMerge>());
  EXPECT_OK(merge.PrepareOptions(strict));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
