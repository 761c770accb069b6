#pragma once
// The executor's tensor handle: a shape, an element type and shared backend-owned storage.
// Copies share storage (like torch tensors); the storage is released when its last handle
// goes away, which the meta backend records as a Free, so memory over time follows the code.

#include <cstdint>
#include <memory>
#include <utility>

#include "models/dtype.hpp"
#include "units/units.hpp"

namespace trainsim {

/// `batch` matrices of `rows` x `cols`, row-major. Activations are [T, h] with T = s·b and
/// row index = position·b + sequence (Megatron's [s, b, h] order).
struct Shape {
  std::int64_t batch = 1;
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  std::int64_t numel() const { return batch * rows * cols; }
  friend bool operator==(const Shape&, const Shape&) = default;
};

/// Backend-specific storage behind a tensor (device memory record, host array, ...).
class TensorStorage {
 public:
  virtual ~TensorStorage() = default;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(std::shared_ptr<TensorStorage> storage, Shape shape, DType dtype)
      : storage_(std::move(storage)),
        shape_(shape),
        dtype_(dtype),
        element_bytes_(bytes_per_element(dtype)) {}
  /// A byte-per-element buffer (dropout masks: Megatron keeps a bool mask); `dtype` is unused.
  static Tensor byte_mask(std::shared_ptr<TensorStorage> storage, Shape shape) {
    Tensor t(std::move(storage), shape, DType::fp16);
    t.element_bytes_ = 1;
    return t;
  }

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  std::int64_t numel() const { return shape_.numel(); }
  /// Size on the device: elements x bytes per element (of the dtype; 1 for masks).
  Bytes bytes() const { return Bytes::of(numel() * element_bytes_); }
  std::int64_t element_bytes() const { return element_bytes_; }
  /// The backend downcasts to its own storage type; only the backend that made it may.
  TensorStorage& storage() const { return *storage_; }
  /// The same storage seen with another shape of as many elements (a flat shard of a
  /// gathered vector read as a matrix, and back).
  Tensor reshaped(Shape shape) const {
    Tensor t = *this;
    t.shape_ = shape;
    return t;
  }
  /// Drops this handle (the storage is freed if it was the last one).
  void reset() { storage_.reset(); }

 private:
  std::shared_ptr<TensorStorage> storage_;
  Shape shape_;
  DType dtype_ = DType::bf16;
  std::int64_t element_bytes_ = 2;
};

}  // namespace trainsim
