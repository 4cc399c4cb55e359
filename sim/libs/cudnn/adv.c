/* libcudnn_adv.so.9 of the sim (sim/libs/cudnn/README.md): RNNs, CTC loss,
 * multi-head attention (cudnn_adv.h) are not simulated: every function but
 * the version check is a generated stub (one line naming it, then
 * CUDNN_STATUS_NOT_SUPPORTED). */
#include <cudnn_adv.h>

__attribute__((visibility("default"))) cudnnStatus_t CUDNNWINAPI cudnnAdvVersionCheck(void)
{
    return CUDNN_STATUS_SUCCESS;
}
