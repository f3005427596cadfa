/* Run a compiled autotune model from C, through its C ABI (model.h), with no Python.
 *
 *   tar xzf ARTIFACT.tar.gz model.so model.h weights.bin
 *   cc -O2 -I. -o run_model run_model.c -ldl
 *   ./run_model ./model.so ./weights.bin [SIZE ...]
 *
 * A model compiled for a range of shapes (`--shape x=1..8x1..512`) has size variables:
 * give one value for each, in the order the library lists them (autotune_size_name); its
 * inputs are made of the shapes those values give, and its outputs sized by
 * autotune_output_shape_at.
 *
 * The weights are mapped from weights.bin (mmap), so they are read from the file only as
 * the kernels touch them, and every process running the model shares one copy.
 * Every float32 input is filled with element i of n set to i / n (ONNX's test runner does
 * the same); each output is printed as a line "output NAME DTYPE D0xD1x..." followed by
 * one line per element (float32 outputs). Exit status 0 on success.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

/* The ABI functions, looked up in the library. */
struct model_api {
    int32_t (*abi_version)(void);
    int64_t (*weights_bytes)(void);
    autotune_model *(*create)(const void *);
    int32_t (*run_sized)(autotune_model *, const int64_t *, const void *const *, void *const *);
    void (*destroy)(autotune_model *);
    int32_t (*num_sizes)(void);
    const char *(*size_name)(int32_t);
    int64_t (*size_upper)(int32_t);
    const int32_t *(*input_sizes)(int32_t);
    int32_t (*output_shape_at)(int32_t, const int64_t *, int64_t *);
    int32_t (*num_inputs)(void);
    const char *(*input_name)(int32_t);
    const char *(*input_dtype)(int32_t);
    int32_t (*input_ndim)(int32_t);
    const int64_t *(*input_shape)(int32_t);
    int32_t (*num_outputs)(void);
    const char *(*output_name)(int32_t);
    const char *(*output_dtype)(int32_t);
    int32_t (*output_ndim)(int32_t);
    const int64_t *(*output_shape)(int32_t);
};

static void *lookup(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (!symbol) {
        fprintf(stderr, "error: the library does not export %s\n", name);
        exit(1);
    }
    return symbol;
}

/* weights.bin mapped read-only; exits when it cannot be, or has not `expected` bytes. */
static const void *map_weights(const char *path, int64_t expected) {
    int fd = open(path, O_RDONLY);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0) {
        perror(path);
        exit(1);
    }
    if ((int64_t)info.st_size != expected) {
        fprintf(stderr, "error: %s has %lld bytes, the model expects %lld\n", path,
                (long long)info.st_size, (long long)expected);
        exit(1);
    }
    void *weights = mmap(0, (size_t)expected, PROT_READ, MAP_PRIVATE, fd, 0);
    if (weights == MAP_FAILED) {
        perror(path);
        exit(1);
    }
    close(fd); /* the mapping keeps the file */
    return weights;
}

/* The shape of input `index` when the size variables are `sizes`, into `shape`. */
static void input_shape_at(const struct model_api *api, int32_t index, const int64_t *sizes,
                           int64_t *shape) {
    const int32_t *which = api->input_sizes(index);
    for (int32_t d = 0; d < api->input_ndim(index); ++d)
        shape[d] = which[d] >= 0 ? sizes[which[d]] : api->input_shape(index)[d];
}

static int64_t element_count(int32_t ndim, const int64_t *shape) {
    int64_t count = 1;
    for (int32_t d = 0; d < ndim; ++d) count *= shape[d];
    return count;
}

static size_t dtype_bytes(const char *dtype) {
    if (!strcmp(dtype, "float64") || !strcmp(dtype, "int64") || !strcmp(dtype, "uint64")) return 8;
    if (!strcmp(dtype, "float32") || !strcmp(dtype, "int32") || !strcmp(dtype, "uint32")) return 4;
    if (!strcmp(dtype, "float16") || !strcmp(dtype, "int16") || !strcmp(dtype, "uint16")) return 2;
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s path/to/model.so path/to/weights.bin [SIZE ...]\n", argv[0]);
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "error: %s\n", dlerror());
        return 1;
    }
    struct model_api api;
    *(void **)&api.abi_version = lookup(library, "autotune_abi_version");
    *(void **)&api.weights_bytes = lookup(library, "autotune_weights_bytes");
    *(void **)&api.create = lookup(library, "autotune_create");
    *(void **)&api.run_sized = lookup(library, "autotune_run_sized");
    *(void **)&api.destroy = lookup(library, "autotune_destroy");
    *(void **)&api.num_sizes = lookup(library, "autotune_num_sizes");
    *(void **)&api.size_name = lookup(library, "autotune_size_name");
    *(void **)&api.size_upper = lookup(library, "autotune_size_upper");
    *(void **)&api.input_sizes = lookup(library, "autotune_input_sizes");
    *(void **)&api.output_shape_at = lookup(library, "autotune_output_shape_at");
    *(void **)&api.num_inputs = lookup(library, "autotune_num_inputs");
    *(void **)&api.input_name = lookup(library, "autotune_input_name");
    *(void **)&api.input_dtype = lookup(library, "autotune_input_dtype");
    *(void **)&api.input_ndim = lookup(library, "autotune_input_ndim");
    *(void **)&api.input_shape = lookup(library, "autotune_input_shape");
    *(void **)&api.num_outputs = lookup(library, "autotune_num_outputs");
    *(void **)&api.output_name = lookup(library, "autotune_output_name");
    *(void **)&api.output_dtype = lookup(library, "autotune_output_dtype");
    *(void **)&api.output_ndim = lookup(library, "autotune_output_ndim");
    *(void **)&api.output_shape = lookup(library, "autotune_output_shape");
    if (api.abi_version() != AUTOTUNE_ABI_VERSION) {
        fprintf(stderr, "error: model ABI version %d, expected %d\n", api.abi_version(),
                AUTOTUNE_ABI_VERSION);
        return 1;
    }

    /* Size variables: one value each from the command line. */
    int32_t num_sizes = api.num_sizes();
    if (argc - 3 != num_sizes) {
        fprintf(stderr, "error: the model has %d size variable(s), given %d values:", num_sizes,
                argc - 3);
        for (int32_t i = 0; i < num_sizes; ++i)
            fprintf(stderr, " %s (1..%lld)", api.size_name(i), (long long)api.size_upper(i));
        fprintf(stderr, "\n");
        return 2;
    }
    int64_t *sizes = calloc((size_t)num_sizes + 1, sizeof(int64_t));
    for (int32_t i = 0; i < num_sizes; ++i) sizes[i] = atoll(argv[3 + i]);
    int64_t shape[64];

    /* Inputs: float32 ones get i / n, others zeros. */
    int32_t num_inputs = api.num_inputs();
    void **inputs = calloc((size_t)num_inputs + 1, sizeof(void *));
    for (int32_t i = 0; i < num_inputs; ++i) {
        input_shape_at(&api, i, sizes, shape);
        int64_t count = element_count(api.input_ndim(i), shape);
        const char *dtype = api.input_dtype(i);
        inputs[i] = calloc((size_t)count + 1, dtype_bytes(dtype));
        if (!strcmp(dtype, "float32")) {
            float *data = inputs[i];
            for (int64_t k = 0; k < count; ++k) data[k] = (float)k / (float)count;
        }
        printf("input %s %s %lld elements\n", api.input_name(i), dtype, (long long)count);
    }

    /* Outputs. */
    int32_t num_outputs = api.num_outputs();
    void **outputs = calloc((size_t)num_outputs + 1, sizeof(void *));
    for (int32_t i = 0; i < num_outputs; ++i) {
        int32_t status = api.output_shape_at(i, sizes, shape);
        if (status != AUTOTUNE_OK) {
            fprintf(stderr, "error: autotune_output_shape_at returned %d (a size out of range?)\n",
                    status);
            return 1;
        }
        int64_t count = element_count(api.output_ndim(i), shape);
        outputs[i] = calloc((size_t)count + 1, dtype_bytes(api.output_dtype(i)));
    }

    int64_t weights_bytes = api.weights_bytes();
    const void *weights = map_weights(argv[2], weights_bytes);
    autotune_model *model = api.create(weights);
    if (!model) {
        fprintf(stderr, "error: cannot allocate the model's workspace\n");
        return 1;
    }
    int32_t status = api.run_sized(model, sizes, (const void *const *)inputs, outputs);
    if (status != AUTOTUNE_OK) {
        fprintf(stderr, "error: autotune_run_sized returned %d\n", status);
        return 1;
    }

    for (int32_t i = 0; i < num_outputs; ++i) {
        int32_t ndim = api.output_ndim(i);
        api.output_shape_at(i, sizes, shape);
        printf("output %s %s ", api.output_name(i), api.output_dtype(i));
        for (int32_t d = 0; d < ndim; ++d) printf(d ? "x%lld" : "%lld", (long long)shape[d]);
        printf("\n");
        if (!strcmp(api.output_dtype(i), "float32")) {
            const float *data = outputs[i];
            int64_t count = element_count(ndim, shape);
            for (int64_t k = 0; k < count; ++k) printf("%.9g\n", data[k]);
        }
    }

    api.destroy(model);
    munmap((void *)weights, (size_t)weights_bytes);
    for (int32_t i = 0; i < num_inputs; ++i) free(inputs[i]);
    for (int32_t i = 0; i < num_outputs; ++i) free(outputs[i]);
    free(inputs);
    free(outputs);
    free(sizes);
    return 0;
}
