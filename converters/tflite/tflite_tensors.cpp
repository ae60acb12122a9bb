#include "converters/tflite/tflite_tensors.hpp"

#include <cstring>

namespace mote::convert {

Shape tensor_shape(const tfl::Tensor& tensor) {
  Shape s;
  if (tensor.shape()) {
    for (int d : *tensor.shape()) s.push_back(d);
  }
  return s;
}

std::optional<DType> mote_dtype(tfl::TensorType type) {
  switch (type) {
    case tfl::TensorType::FLOAT32: return DType::F32;
    case tfl::TensorType::FLOAT16: return DType::F16;
    case tfl::TensorType::FLOAT64: return DType::F64;
    case tfl::TensorType::INT32: return DType::I32;
    case tfl::TensorType::INT64: return DType::I64;
    case tfl::TensorType::INT8: return DType::I8;
    case tfl::TensorType::UINT8: return DType::U8;
    case tfl::TensorType::BOOL: return DType::Bool;
    default: return std::nullopt;
  }
}

DType tensor_dtype(const tfl::Tensor& tensor) { return mote_dtype(tensor.type()).value_or(DType::F32); }

bool is_quantized(const tfl::Tensor& tensor) {
  const DType d = tensor_dtype(tensor);
  const auto* q = tensor.quantization();
  return (d == DType::I8 || d == DType::U8 || d == DType::I32) && q && q->scale() && q->scale()->size() > 0;
}

QuantParams quant_params(const tfl::Tensor& tensor) {
  QuantParams p;
  const auto* q = tensor.quantization();
  if (!q) return p;
  if (q->scale()) p.scales.assign(q->scale()->begin(), q->scale()->end());
  if (q->zero_point()) p.zero_points.assign(q->zero_point()->begin(), q->zero_point()->end());
  p.zero_points.resize(p.scales.size(), 0);
  p.axis = q->quantized_dimension();
  return p;
}

namespace {

// The bytes of tensor t's buffer; empty span when it has none.
bool buffer_bytes(const TfliteImportState& state, int t, const uint8_t*& data, size_t& size, std::string& error) {
  const tfl::Tensor& tensor = state.tensor(t);
  const auto* buffers = state.model->buffers();
  data = nullptr;
  size = 0;
  if (tensor.buffer() == 0 || !buffers) return true;
  if (tensor.buffer() >= buffers->size()) {
    error = "tensor '" + state.tensor_name(t) + "' names buffer " + std::to_string(tensor.buffer()) + " of " +
            std::to_string(buffers->size());
    return false;
  }
  const tfl::Buffer* b = buffers->Get(tensor.buffer());
  if (b->offset() > 1) {
    if (b->offset() > state.file_size || b->size() > state.file_size - b->offset()) {
      error = "tensor '" + state.tensor_name(t) + "': buffer " + std::to_string(tensor.buffer()) +
              " lies past the end of the file";
      return false;
    }
    data = state.file_data + b->offset();
    size = b->size();
  } else if (b->data()) {
    data = b->data()->data();
    size = b->data()->size();
  }
  return true;
}

}  // namespace

bool has_constant_data(const TfliteImportState& state, int t) {
  const uint8_t* data;
  size_t size;
  std::string error;
  return buffer_bytes(state, t, data, size, error) && size > 0;
}

std::optional<Tensor> constant_data(const TfliteImportState& state, int t, std::string& error) {
  const uint8_t* data;
  size_t size;
  if (!buffer_bytes(state, t, data, size, error) || size == 0) return std::nullopt;
  const tfl::Tensor& tensor = state.tensor(t);
  auto dtype = mote_dtype(tensor.type());
  Shape shape = tensor_shape(tensor);
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && numel > (int64_t{1} << 40) / d)) {
      error = "constant tensor '" + state.tensor_name(t) + "' has shape " + shape_to_string(shape);
      return std::nullopt;
    }
    numel *= d;
  }
  if (!dtype || static_cast<uint64_t>(numel) * dtype_size(*dtype) != size) {
    error = "constant tensor '" + state.tensor_name(t) + "' (" +
            (dtype ? dtype_name(*dtype) : std::string("type ") + std::to_string(static_cast<int>(tensor.type()))) +
            ", shape " + shape_to_string(shape) + ") has a buffer of " + std::to_string(size) + " bytes";
    return std::nullopt;
  }
  Tensor out = Tensor::zeros(*dtype, shape);
  std::memcpy(out.raw(), data, size);
  return out;
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& perm) {
  const Shape& in = t.shape();
  const size_t rank = in.size();
  Shape out_shape(rank);
  for (size_t k = 0; k < rank; ++k) out_shape[k] = in[static_cast<size_t>(perm[k])];
  Tensor out = Tensor::zeros(t.dtype(), out_shape);
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t k = rank; k-- > 1;) in_strides[k - 1] = in_strides[k] * in[k];
  const size_t elem = dtype_size(t.dtype());
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t offset = 0;
    for (size_t k = 0; k < rank; ++k) offset += index[k] * in_strides[static_cast<size_t>(perm[k])];
    std::memcpy(dst + static_cast<size_t>(i) * elem, src + static_cast<size_t>(offset) * elem, elem);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < out_shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

namespace {

double element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::I8: return t.data<int8_t>()[i];
    case DType::U8: return t.data<uint8_t>()[i];
    case DType::I32: return t.data<int32_t>()[i];
    default: return 0;
  }
}

// Scale and zero point as Mote's Q/DQ ops take them: scalars per tensor,
// 1-D per axis; the zero point in `zp_dtype`.
std::pair<Tensor, Tensor> qdq_params(const QuantParams& q, DType zp_dtype) {
  const bool per_axis = q.scales.size() > 1;
  Shape shape = per_axis ? Shape{static_cast<int64_t>(q.scales.size())} : Shape{};
  Tensor scale = Tensor::from_vector<float>(shape, q.scales);
  Tensor zp = Tensor::zeros(zp_dtype, shape);
  for (size_t k = 0; k < q.scales.size(); ++k) {
    switch (zp_dtype) {
      case DType::I8: zp.data<int8_t>()[k] = static_cast<int8_t>(q.zero_points[k]); break;
      case DType::U8: zp.data<uint8_t>()[k] = static_cast<uint8_t>(q.zero_points[k]); break;
      case DType::I32: zp.data<int32_t>()[k] = static_cast<int32_t>(q.zero_points[k]); break;
      default: break;
    }
  }
  return {std::move(scale), std::move(zp)};
}

}  // namespace

int dequantize(Graph& graph, int v, const QuantParams& q, int64_t axis, DType stored_dtype, const std::string& name,
               const std::string& op_name, bool fold_constant) {
  const Value& stored = graph.values[static_cast<size_t>(v)];
  if (stored.is_constant() && fold_constant) {
    const Tensor& data = *stored.data;
    Tensor out = Tensor::zeros(DType::F32, data.shape());
    int64_t inner = 1, channels = 1;
    if (q.scales.size() > 1) {
      channels = data.dim(static_cast<int>(axis));
      for (int k = static_cast<int>(axis) + 1; k < data.rank(); ++k) inner *= data.dim(k);
    }
    for (int64_t i = 0; i < data.numel(); ++i) {
      const size_t c = q.scales.size() > 1 ? static_cast<size_t>((i / inner) % channels) : 0;
      out.data<float>()[i] =
          static_cast<float>(q.scales[c] * (element(data, i) - static_cast<double>(q.zero_points[c])));
    }
    return graph.add_derived_constant(name + "_float", std::move(out));
  }
  auto [scale, zp] = qdq_params(q, stored_dtype);
  int s = graph.add_derived_constant(name + "_scale", std::move(scale));
  int z = graph.add_derived_constant(name + "_zero_point", std::move(zp));
  int out = graph.add_derived_value(name + "_float");
  fb::QuantizeAttrsT a;
  a.axis = axis;
  set_attrs(graph.add_op(fb::OpType::DequantizeLinear, op_name + "/dequantize_" + name, {v, s, z}, {out}),
            std::move(a));
  return out;
}

void quantize(Graph& graph, int from, int to, const QuantParams& q, int64_t axis, DType dtype,
              const std::string& op_name) {
  auto [scale, zp] = qdq_params(q, dtype);
  const std::string name = graph.values[static_cast<size_t>(to)].name;
  int s = graph.add_derived_constant(name + "_scale", std::move(scale));
  int z = graph.add_derived_constant(name + "_zero_point", std::move(zp));
  fb::QuantizeAttrsT a;
  a.axis = axis;
  a.output_dtype = dtype;
  set_attrs(graph.add_op(fb::OpType::QuantizeLinear, op_name + "/quantize", {from, s, z}, {to}), std::move(a));
}

}  // namespace mote::convert
