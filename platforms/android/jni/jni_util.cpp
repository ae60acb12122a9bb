#include "platforms/android/jni/jni_util.hpp"

#include <cstring>

namespace mote::jni {

void throw_status(JNIEnv* env, const Status& status) {
  jclass cls = env->FindClass("dev/mote/MoteException");
  if (!cls) return;  // NoClassDefFoundError is pending
  jmethodID ctor = env->GetMethodID(cls, "<init>", "(Ljava/lang/String;Ljava/lang/String;)V");
  jstring code = env->NewStringUTF(status_code_name(status.code()));
  jstring message = env->NewStringUTF(status.message().c_str());
  if (!ctor || !code || !message) return;
  env->Throw(static_cast<jthrowable>(env->NewObject(cls, ctor, code, message)));
}

void throw_argument(JNIEnv* env, const std::string& message) {
  jclass cls = env->FindClass("java/lang/IllegalArgumentException");
  if (cls) env->ThrowNew(cls, message.c_str());
}

std::string to_string(JNIEnv* env, jstring s) {
  if (!s) return {};
  const char* chars = env->GetStringUTFChars(s, nullptr);
  std::string out = chars ? chars : "";
  if (chars) env->ReleaseStringUTFChars(s, chars);
  return out;
}

bool borrow_tensor(JNIEnv* env, jobject tensor, const std::string& what, Tensor* out) {
  if (!tensor) {
    throw_argument(env, what + " is null");
    return false;
  }
  jclass cls = env->GetObjectClass(tensor);
  jobject dtype = env->GetObjectField(tensor, env->GetFieldID(cls, "dtype", "Ldev/mote/DType;"));
  auto shape_array = static_cast<jlongArray>(env->GetObjectField(tensor, env->GetFieldID(cls, "shape", "[J")));
  jobject data = env->GetObjectField(tensor, env->GetFieldID(cls, "data", "Ljava/nio/ByteBuffer;"));
  if (!dtype || !shape_array || !data) {
    throw_argument(env, what + " has no dtype, shape or data");
    return false;
  }
  jint ordinal = env->CallIntMethod(dtype, env->GetMethodID(env->GetObjectClass(dtype), "ordinal", "()I"));
  Shape shape(static_cast<size_t>(env->GetArrayLength(shape_array)));
  env->GetLongArrayRegion(shape_array, 0, static_cast<jsize>(shape.size()), reinterpret_cast<jlong*>(shape.data()));
  void* address = env->GetDirectBufferAddress(data);
  jlong capacity = env->GetDirectBufferCapacity(data);
  DType type = static_cast<DType>(ordinal);
  int64_t count = shape_numel(shape);
  if (count < 0) {
    throw_argument(env, what + ": shape " + shape_to_string(shape) + " has a negative dimension");
    return false;
  }
  uint64_t needed = static_cast<uint64_t>(count) * dtype_size(type);
  if (!address || capacity < 0 || static_cast<uint64_t>(capacity) != needed) {
    throw_argument(env, what + ": " + dtype_name(type) + " " + shape_to_string(shape) + " needs a direct buffer of " +
                            std::to_string(needed) + " bytes, got " +
                            (address ? std::to_string(capacity) + " bytes" : std::string("a non-direct buffer")));
    return false;
  }
  *out = Tensor::borrow(type, std::move(shape), address);
  return true;
}

bool borrow_tensors(JNIEnv* env, jobjectArray tensors, const char* what, std::vector<Tensor>* out) {
  if (!tensors) {
    throw_argument(env, std::string(what) + " is null");
    return false;
  }
  jsize n = env->GetArrayLength(tensors);
  for (jsize i = 0; i < n; ++i) {
    Tensor t;
    if (!borrow_tensor(env, env->GetObjectArrayElement(tensors, i), std::string(what) + " " + std::to_string(i), &t)) {
      return false;
    }
    out->push_back(std::move(t));
  }
  return true;
}

jobjectArray to_java(JNIEnv* env, const std::vector<Tensor>& tensors) {
  jclass cls = env->FindClass("dev/mote/Tensor");
  if (!cls) return nullptr;
  jmethodID allocate = env->GetStaticMethodID(cls, "allocate", "(I[J)Ldev/mote/Tensor;");
  jfieldID data_field = env->GetFieldID(cls, "data", "Ljava/nio/ByteBuffer;");
  jobjectArray result = env->NewObjectArray(static_cast<jsize>(tensors.size()), cls, nullptr);
  if (!allocate || !data_field || !result) return nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    jlongArray shape = env->NewLongArray(static_cast<jsize>(t.shape().size()));
    if (!shape) return nullptr;
    env->SetLongArrayRegion(shape, 0, static_cast<jsize>(t.shape().size()),
                            reinterpret_cast<const jlong*>(t.shape().data()));
    jobject java = env->CallStaticObjectMethod(cls, allocate, static_cast<jint>(t.dtype()), shape);
    if (env->ExceptionCheck() || !java) return nullptr;
    void* address = env->GetDirectBufferAddress(env->GetObjectField(java, data_field));
    if (t.bytes()) std::memcpy(address, t.raw(), t.bytes());
    env->SetObjectArrayElement(result, static_cast<jsize>(i), java);
    env->DeleteLocalRef(java);
    env->DeleteLocalRef(shape);
  }
  return result;
}

jobjectArray to_java_or_throw(JNIEnv* env, const Result<std::vector<Tensor>>& outputs) {
  if (!outputs.ok()) {
    throw_status(env, outputs.status());
    return nullptr;
  }
  return to_java(env, *outputs);
}

}  // namespace mote::jni
