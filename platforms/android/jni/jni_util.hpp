// What every JNI entry point of libmote_jni needs: Mote errors turned into
// dev.mote.MoteException, and tensors moved between Java (dev.mote.Tensor,
// direct ByteBuffers) and Mote without a copy on the way in.
#pragma once

#include <jni.h>

#include <memory>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::jni {

// Throws dev.mote.MoteException(code, message); the caller returns at once.
void throw_status(JNIEnv* env, const Status& status);
// Throws java.lang.IllegalArgumentException.
void throw_argument(JNIEnv* env, const std::string& message);

std::string to_string(JNIEnv* env, jstring s);

// The Java tensors' data, borrowed (valid while the Java objects live, which
// the caller's frame guarantees). Sizes are checked against dtype and shape;
// a mismatch throws and returns false.
bool borrow_tensors(JNIEnv* env, jobjectArray tensors, const char* what, std::vector<Tensor>* out);
bool borrow_tensor(JNIEnv* env, jobject tensor, const std::string& what, Tensor* out);
// New Java tensors (direct buffers allocated by Java) holding copies; null
// with an exception pending on failure.
jobjectArray to_java(JNIEnv* env, const std::vector<Tensor>& tensors);
// A run's outputs as Java tensors, or its error thrown (and null returned).
jobjectArray to_java_or_throw(JNIEnv* env, const Result<std::vector<Tensor>>& outputs);

// What a create() made, handed to Java as a handle (Java's close() deletes
// it), or its error thrown and 0 returned.
template <class T>
jlong handle_or_throw(JNIEnv* env, Result<std::unique_ptr<T>> created) {
  if (!created.ok()) {
    throw_status(env, created.status());
    return 0;
  }
  return reinterpret_cast<jlong>(created->release());
}

}  // namespace mote::jni
