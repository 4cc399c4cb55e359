/* Unit tests of the core's framework errors (core/verdict/framework.c, issue 27),
 * called directly as devcheck's Python hook calls them:
 *  - the message test made before any interpreter work: PyTorch's device
 *    messages match; an index error, a dtype error, a size error and NULL
 *    do not; the convolutions' "Input type (torch.cuda.X) and weight type
 *    (torch.X)" matches, two CUDA types (a dtype mismatch) do not;
 *  - a conv whose module stayed on the CPU: the fix moves the module;
 *  - a finding from the hook's facts: the note leads with the user's frame
 *    (the first outside site-packages) and its source, each tensor's line
 *    (a CPU tensor's making statement), the fix naming model.device when the
 *    module says so, else the parameter itself;
 *  - the JSON record: at (with source), module, made_at, alloc_at null;
 *  - a repeat still gets its note and is counted; a note cut to a small
 *    buffer stays terminated; bad arguments report nothing and leave "".
 * Usage: test_framework [OUTDIR] (default: a new directory under /tmp) */
#include "core/core.h"
#include "report/finding.h"
#include "report/report.h"
#include "tests/unit/unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_messages(void)
{
    CHECK(dc_framework_device_message("Expected all tensors to be on the same device, but got index is on cpu, "
                                      "different from other tensors on cuda:0 (when checking argument in method "
                                      "wrapper_CUDA__index_select)"));
    CHECK(dc_framework_device_message("Expected all tensors to be on the same device, but found at least two "
                                      "devices, cuda:0 and cuda:1!"));
    CHECK(dc_framework_device_message("Input and parameter tensors are not at the same device, found input "
                                      "tensor at cuda:1 and parameter tensor at cuda:0"));
    CHECK(dc_framework_device_message("Expected tensor for argument #1 'input' to have the same device as tensor "
                                      "for argument #2 'weight'; but device 1 does not equal 0"));
    CHECK(!dc_framework_device_message("index 5 is out of bounds for dimension 0 with size 2"));
    CHECK(!dc_framework_device_message("Expected tensor for argument #1 'indices' to have one of the following "
                                       "scalar types: Long, Int; but got torch.cuda.FloatTensor instead"));
    CHECK(!dc_framework_device_message("The size of tensor a (2) must match the size of tensor b (3) at "
                                       "non-singleton dimension 0"));
    CHECK(!dc_framework_device_message(NULL));
    /* RNNs' hidden state (ATen's RNN check_attributes), SDPA, masked_fill */
    CHECK(dc_framework_device_message("Input and hidden tensors are not at the same device, found input tensor at "
                                      "cuda:0 and hidden tensor at cpu"));
    CHECK(dc_framework_device_message("Expected query, key, and value to have the same device type, but got "
                                      "query.device: cuda:0 key.device: cuda:1 and value.device: cuda:0 instead."));
    CHECK(dc_framework_device_message("expected self and mask to be on the same device, but got mask on cuda:1 and "
                                      "self on cuda:0"));
    CHECK(dc_framework_device_message("indices should be either on cpu or on the same device as the indexed tensor "
                                      "(cuda:0)"));
    /* ATen's TensorUtils checks, which never say "device" */
    CHECK(dc_framework_device_message("Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU (while "
                                      "checking arguments for addmm)"));
    CHECK(dc_framework_device_message("Tensor for argument #1 'self' is on CPU, Tensor for argument #2 'mat1' is on "
                                      "CPU, but expected them to be on GPU (while checking arguments for addmm)"));
    CHECK(dc_framework_device_message("Expected tensor to have CUDA Backend, but got tensor with CPU Backend (while "
                                      "checking arguments for cudnn_convolution)"));
    CHECK(dc_framework_device_message("Expected tensor to have CPU Backend, but got tensor with CUDA Backend (while "
                                      "checking arguments for foo)"));
    CHECK(dc_framework_device_message("Expected tensor to have cuda DeviceType, but got tensor with cpu DeviceType "
                                      "(while checking arguments for bar)"));
    CHECK(!dc_framework_device_message("Expected tensor to have CUDA Backend, but got tensor with SparseCUDA Backend "
                                       "(while checking arguments for baz)"));
    CHECK(!dc_framework_device_message("Expected tensor to have Strided Layout, but got tensor with Sparse Layout "
                                       "(while checking arguments for baz)"));
    CHECK(!dc_framework_device_message("Expected tensor to have CUDA Backend, but got tensor with CUDA Backend"));
    /* the convolutions' type message (issue 36): a device mismatch only when
     * exactly one of the two legacy type names is a CUDA one */
    CHECK(dc_framework_device_message("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) "
                                      "should be the same"));
    CHECK(dc_framework_device_message("Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
                                      "should be the same or input should be a MKLDNN tensor and weight is a dense "
                                      "tensor"));
    CHECK(dc_framework_device_message("Input type (torch.cuda.FloatTensor) and bias type (torch.FloatTensor) "
                                      "should be the same"));
    CHECK(!dc_framework_device_message("Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) "
                                       "should be the same"));
    CHECK(!dc_framework_device_message("Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) "
                                       "should be the same"));
    CHECK(!dc_framework_device_message("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)"));
    /* the MKLDNN tail, the C++ API's spelling (libtorch, older releases) */
    CHECK(dc_framework_device_message("Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should "
                                      "be the same or input should be a MKLDNN tensor and weight is a dense tensor"));
    CHECK(dc_framework_device_message("Input type (CPUFloatType) and weight type (CUDAFloatType) should be the same "
                                      "or input should be a MKLDNN tensor and weight is a dense tensor"));
    CHECK(!dc_framework_device_message("Input type (CUDAHalfType) and weight type (CUDAFloatType) should be the same"));
}

static const char *msg = "Expected all tensors to be on the same device, but got index is on cpu, different from "
                         "other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)";

static void test_finding(const char *outdir)
{
    char json[4096];
    snprintf(json, sizeof json, "%s/framework.json", outdir);
    struct dc_report_config rc = { .json_path = json, .print_limit = 100 };
    dc_report_reset();
    dc_report_init(&rc);

    const struct dc_fw_frame frames[] = {
        { "/venv/lib/python3.11/site-packages/torch/nn/functional.py", "embedding",
          "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)", 2621 },
        { "/home/u/train.py", "main", "out = model(input_ids)", 13 },
        { "/home/u/train.py", "<module>", "main()", 17 },
    };
    struct dc_fw_tensor tensors[] = {
        { .expr = "model.embed_tokens.weight", .device = "cuda:0", .module = "model",
          .flags = DC_TENSOR_PARAM | DC_TENSOR_MODULE_DEVICE },
        { .expr = "input_ids", .device = "cpu", .made_file = "/home/u/train.py", .made_function = "main",
          .made_line = 10 },
    };
    char note[2048];
    CHECK_EQ_LL(dc_framework_error("torch", msg, 3, frames, 2, tensors, note, sizeof note), 0);
    const char *want = "devcheck: framework_device_error: the op's tensors are on different devices\n"
                       "  at /home/u/train.py:13 in main: out = model(input_ids)\n"
                       "  model.embed_tokens.weight: cuda:0, memory not known to devcheck\n"
                       "  input_ids: cpu, made at /home/u/train.py:10 in main\n"
                       "  fix: input_ids = input_ids.to(model.device)";
    CHECK(!strcmp(note, want));
    if (strcmp(note, want))
        fprintf(stderr, "note:\n%s\n", note);

    /* a repeat: counted, and its exception still gets the note */
    memset(note, 'x', sizeof note);
    CHECK_EQ_LL(dc_framework_error("torch", msg, 3, frames, 2, tensors, note, sizeof note), 0);
    CHECK(!strcmp(note, want));

    /* no module device: the parameter names the device */
    tensors[0].flags = DC_TENSOR_PARAM;
    tensors[0].expr = "model[0].weight";
    CHECK_EQ_LL(dc_framework_error("torch", msg, 3, frames, 2, tensors, note, sizeof note), 0);
    CHECK_STR_CONTAINS(note, "  fix: input_ids = input_ids.to(model[0].weight.device)");

    /* a module left on the CPU, its input on a GPU (a conv): the op belongs
     * on the input's device and the module moves */
    struct dc_fw_tensor conv[] = {
        { .expr = "x", .device = "cuda:0" },
        { .expr = "conv.weight", .device = "cpu", .module = "conv", .flags = DC_TENSOR_PARAM },
    };
    CHECK_EQ_LL(dc_framework_error("torch", "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) "
                                   "should be the same", 3, frames, 2, conv, note, sizeof note), 0);
    CHECK_STR_CONTAINS(note, "  fix: conv.to(x.device)");

    /* a vision-language merge, the image features first (issue 41): they
     * move to the text's device, not the text embeddings to the vision
     * tower's */
    struct dc_fw_tensor vlm[] = {
        { .expr = "image_features", .device = "cuda:1" },
        { .expr = "inputs_embeds", .device = "cuda:0" },
    };
    CHECK_EQ_LL(dc_framework_error("torch", msg, 3, frames, 2, vlm, note, sizeof note), 0);
    CHECK_STR_CONTAINS(note, "  fix: image_features = image_features.to(inputs_embeds.device)");

    /* a small buffer: cut, terminated */
    char small[24];
    CHECK_EQ_LL(dc_framework_error("torch", msg, 3, frames, 2, tensors, small, sizeof small), 0);
    CHECK_EQ_LL(strlen(small), sizeof small - 1);
    /* bad arguments: nothing reported, the note empty */
    strcpy(note, "untouched");
    CHECK_EQ_LL(dc_framework_error("torch", NULL, 3, frames, 2, tensors, note, sizeof note), -1);
    CHECK_EQ_LL(note[0], 0);
    CHECK_EQ_LL(dc_framework_error("torch", msg, 3, NULL, 2, tensors, note, sizeof note), -1);
    dc_report_finish();

    char *s = unit_slurp(json, NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_STR_CONTAINS(s, "\"at\":{\"file\":\"/home/u/train.py\",\"line\":13,\"function\":\"main\","
                          "\"source\":\"out = model(input_ids)\"}");
    CHECK_STR_CONTAINS(s, "{\"expr\":\"model.embed_tokens.weight\",\"device\":\"cuda:0\",\"module\":\"model\","
                          "\"alloc_python_stack\":[],\"alloc_at\":null,\"made_at\":null}");
    CHECK_STR_CONTAINS(s, "{\"expr\":\"input_ids\",\"device\":\"cpu\",\"alloc_python_stack\":[],\"alloc_at\":null,"
                          "\"made_at\":{\"file\":\"/home/u/train.py\",\"line\":10,\"function\":\"main\"}}");
    CHECK_STR_CONTAINS(s, "\"hint\":\"input_ids = input_ids.to(model.device)\"");
    CHECK_STR_CONTAINS(s, "\"count\":5,");        /* the same op and stack five times: one finding */
    free(s);
}

int main(int argc, char **argv)
{
    const char *outdir = unit_outdir("test_framework", argc > 1 ? argv[1] : NULL);
    test_messages();
    test_finding(outdir);
    if (argc <= 1) {                    /* our own directory: leave nothing behind */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", outdir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_framework: could not remove %s\n", outdir);
    }
    return unit_done("test_framework");
}
