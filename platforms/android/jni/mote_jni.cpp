// The native side of the dev.mote Java API (platforms/android/java): one
// function per native method. Handles are heap objects owned by the Java
// objects (NativeHandle), which serialise calls and refuse use after close,
// so nothing here sees a freed handle. Every Mote error becomes a
// MoteException carrying Mote's message; nothing throws across JNI.
#include <jni.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "mote/model.hpp"
#include "mote/mote.h"
#include "mote/session.hpp"
#include "platforms/android/jni/jni_util.hpp"
#if MOTE_JNI_TRAINING
#include "mote/training.hpp"
#endif

namespace {

using namespace mote;
using ModelRef = std::shared_ptr<const Model>;

ModelRef& model_ref(jlong handle) { return *reinterpret_cast<ModelRef*>(handle); }

jlong to_handle(ModelRef model) { return reinterpret_cast<jlong>(new ModelRef(std::move(model))); }

// A model over bytes Mote owns: the returned reference keeps the aligned
// copy alive as long as any session uses the model.
jlong load_owned_bytes(JNIEnv* env, Tensor bytes, const std::string& name) {
  auto storage = std::make_shared<Tensor>(std::move(bytes));
  auto model = Model::from_buffer(storage->raw(), storage->bytes(), name);
  if (!model.ok()) {
    jni::throw_status(env, model.status());
    return 0;
  }
  struct Owned {
    std::shared_ptr<Tensor> storage;
    ModelRef model;
  };
  auto owned = std::make_shared<Owned>(Owned{storage, *model});
  return to_handle(ModelRef(owned, owned->model.get()));
}

// The int behind a java.io.FileDescriptor: "descriptor" on Android, "fd" on
// OpenJDK.
int descriptor_of(JNIEnv* env, jobject fd) {
  jclass cls = env->GetObjectClass(fd);
  for (const char* field : {"descriptor", "fd"}) {
    jfieldID id = env->GetFieldID(cls, field, "I");
    if (id) return env->GetIntField(fd, id);
    env->ExceptionClear();  // NoSuchFieldError: try the other name
  }
  return -1;
}

}  // namespace

extern "C" {

JNIEXPORT jstring JNICALL Java_dev_mote_Mote_nativeVersion(JNIEnv* env, jclass) {
  return env->NewStringUTF(mote_version());
}

// ---- Model -----------------------------------------------------------------

JNIEXPORT jlong JNICALL Java_dev_mote_Model_nativeLoadFile(JNIEnv* env, jclass, jstring path) {
  auto model = Model::load(jni::to_string(env, path));
  if (!model.ok()) {
    jni::throw_status(env, model.status());
    return 0;
  }
  return to_handle(*model);
}

JNIEXPORT jlong JNICALL Java_dev_mote_Model_nativeLoadBuffer(JNIEnv* env, jclass, jobject buffer, jint position,
                                                             jint length) {
  auto* base = static_cast<const uint8_t*>(env->GetDirectBufferAddress(buffer));
  jlong capacity = env->GetDirectBufferCapacity(buffer);
  if (!base || position < 0 || length < 0 || static_cast<jlong>(position) + length > capacity) {
    jni::throw_argument(env, "Model.fromBuffer: not a direct buffer, or the range lies outside it");
    return 0;
  }
  Tensor bytes = Tensor::zeros(DType::U8, {length});
  if (length) std::memcpy(bytes.raw(), base + position, static_cast<size_t>(length));
  return load_owned_bytes(env, std::move(bytes), "<ByteBuffer>");
}

JNIEXPORT jlong JNICALL Java_dev_mote_Model_nativeLoadFd(JNIEnv* env, jclass, jobject fd, jlong offset,
                                                         jlong length) {
  int descriptor = fd ? descriptor_of(env, fd) : -1;
  if (descriptor < 0 || offset < 0 || length < 0) {
    jni::throw_argument(env, "Model.fromFileDescriptor: an invalid descriptor, offset or length");
    return 0;
  }
  std::string name = "<fd " + std::to_string(descriptor) + " at " + std::to_string(offset) + ">";
  Tensor bytes = Tensor::zeros(DType::U8, {length});
  auto* out = static_cast<uint8_t*>(bytes.raw());
  for (jlong done = 0; done < length;) {
    ssize_t n = pread(descriptor, out + done, static_cast<size_t>(length - done), offset + done);
    if (n <= 0) {
      std::string why = n == 0 ? "the file ends before " + std::to_string(offset + length) + " bytes"
                               : std::string(std::strerror(errno));
      jni::throw_status(env, io_error(name + ": cannot read the model: " + why));
      return 0;
    }
    done += n;
  }
  return load_owned_bytes(env, std::move(bytes), name);
}

JNIEXPORT jobjectArray JNICALL Java_dev_mote_Model_nativeDescribe(JNIEnv* env, jclass, jlong handle, jboolean inputs) {
  std::vector<TensorDesc> descs = inputs ? model_ref(handle)->inputs() : model_ref(handle)->outputs();
  jclass cls = env->FindClass("dev/mote/TensorInfo");
  if (!cls) return nullptr;
  jmethodID ctor = env->GetMethodID(cls, "<init>", "(Ljava/lang/String;I[J)V");
  jobjectArray result = env->NewObjectArray(static_cast<jsize>(descs.size()), cls, nullptr);
  for (size_t i = 0; result && ctor && i < descs.size(); ++i) {
    jlongArray shape = env->NewLongArray(static_cast<jsize>(descs[i].shape.size()));
    env->SetLongArrayRegion(shape, 0, static_cast<jsize>(descs[i].shape.size()),
                            reinterpret_cast<const jlong*>(descs[i].shape.data()));
    jobject info = env->NewObject(cls, ctor, env->NewStringUTF(descs[i].name.c_str()),
                                  static_cast<jint>(descs[i].dtype), shape);
    env->SetObjectArrayElement(result, static_cast<jsize>(i), info);
  }
  return result;
}

JNIEXPORT jlong JNICALL Java_dev_mote_Model_nativeShare(JNIEnv*, jclass, jlong handle) {
  return to_handle(model_ref(handle));
}

JNIEXPORT void JNICALL Java_dev_mote_Model_nativeRelease(JNIEnv*, jclass, jlong handle) {
  delete reinterpret_cast<ModelRef*>(handle);
}

// ---- Session ---------------------------------------------------------------

JNIEXPORT jlong JNICALL Java_dev_mote_Session_nativeCreate(JNIEnv* env, jclass, jlong model, jstring backend,
                                                           jint threads, jboolean fp16, jboolean fp16_arithmetic) {
  auto parsed = parse_backend(jni::to_string(env, backend));
  if (!parsed.ok()) {
    jni::throw_status(env, parsed.status());
    return 0;
  }
  SessionOptions options;
  options.backend = *parsed;
  options.threads = threads;
  options.gpu_precision = fp16 ? GpuPrecision::kF16Storage : GpuPrecision::kF32;
  options.gpu_f16_arithmetic = fp16_arithmetic;
  return jni::handle_or_throw(env, Session::create(model_ref(model), options));
}

JNIEXPORT jobjectArray JNICALL Java_dev_mote_Session_nativeRun(JNIEnv* env, jclass, jlong handle,
                                                               jobjectArray inputs) {
  std::vector<Tensor> in;
  if (!jni::borrow_tensors(env, inputs, "input", &in)) return nullptr;
  return jni::to_java_or_throw(env, reinterpret_cast<Session*>(handle)->run(in));
}

JNIEXPORT jstring JNICALL Java_dev_mote_Session_nativeBackend(JNIEnv* env, jclass, jlong handle) {
  return env->NewStringUTF(backend_name(reinterpret_cast<Session*>(handle)->plan_stats().backend));
}

JNIEXPORT void JNICALL Java_dev_mote_Session_nativeDestroy(JNIEnv*, jclass, jlong handle) {
  delete reinterpret_cast<Session*>(handle);
}

// ---- TrainingSession -------------------------------------------------------

#if MOTE_JNI_TRAINING

JNIEXPORT jlong JNICALL Java_dev_mote_TrainingSession_nativeCreate(JNIEnv* env, jclass, jlong model, jstring loss,
                                                                   jstring optimizer, jfloat learning_rate,
                                                                   jstring trainable_after, jstring backend,
                                                                   jint threads) {
  TrainingOptions options;
  auto loss_kind = parse_loss_kind(jni::to_string(env, loss));
  auto optimizer_kind = parse_optimizer_kind(jni::to_string(env, optimizer));
  auto backend_kind = parse_backend(jni::to_string(env, backend));
  for (const Status* st : {&loss_kind.status(), &optimizer_kind.status(), &backend_kind.status()}) {
    if (!st->ok()) {
      jni::throw_status(env, *st);
      return 0;
    }
  }
  options.loss = *loss_kind;
  options.optimizer.kind = *optimizer_kind;
  options.optimizer.learning_rate = learning_rate;
  options.trainable_after = jni::to_string(env, trainable_after);
  options.session.backend = *backend_kind;
  options.session.threads = threads;
  return jni::handle_or_throw(env, TrainingSession::create(model_ref(model), options));
}

JNIEXPORT jfloat JNICALL Java_dev_mote_TrainingSession_nativeTrainStep(JNIEnv* env, jclass, jlong handle,
                                                                       jobjectArray inputs, jobject labels) {
  std::vector<Tensor> in;
  Tensor label_tensor;
  if (!jni::borrow_tensors(env, inputs, "input", &in) || !jni::borrow_tensor(env, labels, "labels", &label_tensor)) {
    return 0;
  }
  auto loss = reinterpret_cast<TrainingSession*>(handle)->train_step(in, label_tensor);
  if (!loss.ok()) {
    jni::throw_status(env, loss.status());
    return 0;
  }
  return *loss;
}

JNIEXPORT jobjectArray JNICALL Java_dev_mote_TrainingSession_nativeEvaluate(JNIEnv* env, jclass, jlong handle,
                                                                            jobjectArray inputs) {
  std::vector<Tensor> in;
  if (!jni::borrow_tensors(env, inputs, "input", &in)) return nullptr;
  return jni::to_java_or_throw(env, reinterpret_cast<TrainingSession*>(handle)->evaluate(in));
}

JNIEXPORT void JNICALL Java_dev_mote_TrainingSession_nativeSave(JNIEnv* env, jclass, jlong handle, jstring path) {
  Status st = reinterpret_cast<TrainingSession*>(handle)->save(jni::to_string(env, path));
  if (!st.ok()) jni::throw_status(env, st);
}

JNIEXPORT jlong JNICALL Java_dev_mote_TrainingSession_nativeStep(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<TrainingSession*>(handle)->step();
}

JNIEXPORT void JNICALL Java_dev_mote_TrainingSession_nativeDestroy(JNIEnv*, jclass, jlong handle) {
  delete reinterpret_cast<TrainingSession*>(handle);
}

#else  // an inference-only build: the methods exist and say so

JNIEXPORT jlong JNICALL Java_dev_mote_TrainingSession_nativeCreate(JNIEnv* env, jclass, jlong, jstring, jstring,
                                                                   jfloat, jstring, jstring, jint) {
  jni::throw_status(env, unsupported("this build of Mote has no training (built with MOTE_TRAINING=OFF)"));
  return 0;
}

#endif

}  // extern "C"
