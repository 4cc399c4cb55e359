"""A module never moved to the GPU, called on a GPU input inside try/except
(as pytest, a server or a notebook would): PyTorch says a device mismatch in
words of its own (issue 36).  One mode per run (default conv2d):

    conv2d      `Input type (torch.cuda.FloatTensor) and weight type
                (torch.FloatTensor) should be the same`
    conv1d      the same message from nn.Conv1d
    convT3d     the same message from nn.ConvTranspose3d
    lstm        `Input and parameter tensors are not at the same device`
                (nn.LSTM left on the CPU; cuDNN off: the sim's cuDNN has no
                RNN dropout descriptor, and ATen checks the devices before
                it picks cuDNN or its own kernels)
    lstm_hidden `Input and hidden tensors are not at the same device`
                (the LSTM on the GPU, its initial state on the CPU)
Prints the message and the notes the exception carries."""
import sys

import torch


def report(e):
    print(f"conv: caught {type(e).__name__}: {str(e).splitlines()[0]}")
    for n in getattr(e, "__notes__", []):
        print(f"conv: note: {n.splitlines()[0]}")


def conv2d():
    conv = torch.nn.Conv2d(3, 4, kernel_size=3)       # WEIGHT: stays on the CPU
    x = torch.ones(1, 3, 8, 8, device="cuda:0")       # INPUT
    try:
        conv(x)                                         # CALL
    except RuntimeError as e:
        report(e)


def conv1d():
    conv = torch.nn.Conv1d(3, 4, kernel_size=3)       # stays on the CPU
    x = torch.ones(1, 3, 8, device="cuda:0")
    try:
        conv(x)                                         # CALL1D
    except RuntimeError as e:
        report(e)


def convT3d():
    conv = torch.nn.ConvTranspose3d(3, 4, kernel_size=3)  # stays on the CPU
    x = torch.ones(1, 3, 4, 4, 4, device="cuda:0")
    try:
        conv(x)                                         # CALLT3D
    except RuntimeError as e:
        report(e)


def lstm():
    rnn = torch.nn.LSTM(8, 4)                         # stays on the CPU
    x = torch.ones(2, 1, 8, device="cuda:0")
    try:
        rnn(x)                                          # RNNCALL
    except RuntimeError as e:
        report(e)


def lstm_hidden():
    rnn = torch.nn.LSTM(8, 4).to("cuda:0")
    x = torch.ones(2, 1, 8, device="cuda:0")
    h0 = torch.zeros(1, 1, 4)                         # HIDDEN: on the CPU
    c0 = torch.zeros(1, 1, 4)
    try:
        rnn(x, (h0, c0))                                # RNNCALL2
    except RuntimeError as e:
        report(e)


mode = sys.argv[1] if len(sys.argv) > 1 else "conv2d"
torch.backends.cudnn.enabled = mode not in ("lstm", "lstm_hidden")
{"conv2d": conv2d, "conv1d": conv1d, "convT3d": convT3d, "lstm": lstm, "lstm_hidden": lstm_hidden}[mode]()
