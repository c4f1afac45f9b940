"""oar-port header.

Source: https://github.com/pytorch/tutorials/blob/main/beginner_source/basics/optimization_tutorial.py
License: BSD 3-Clause (pytorch/tutorials).
Changes (each marked `# oar-port:` in the code): torchvision's FashionMNIST swapped for scikit-learn's digits (8x8; 1437 train / 360 test) in
TensorDatasets with ToTensor's scaling in tensor code; the first Linear takes 8*8 inputs; 10
epochs cut to 3.
`torch.manual_seed(0)` added after the imports: real torch seeds its default generator
differently on every start, so the printed numbers would change from run to run.
The tutorial's narrative comment blocks are shortened; every code line is kept.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader
# from torchvision import datasets  # oar-port: torchvision is not installed; digits below
# from torchvision.transforms import ToTensor  # oar-port: scaling done in _digits
from torch.utils.data import TensorDataset  # oar-port: holds the digits
from sklearn.datasets import load_digits  # oar-port: bundled data, no download
torch.manual_seed(0)  # oar-port: torch seeds randomly at start-up; fix the seed


def _digits(train):  # oar-port: FashionMNIST -> scikit-learn digits, like ToTensor: N x 1 x 8 x 8
    d = load_digits()
    X = torch.tensor(d.images / 16.0, dtype=torch.float32).unsqueeze(1)
    y = torch.tensor(d.target)
    return TensorDataset(X[:1437], y[:1437]) if train else TensorDataset(X[1437:], y[1437:])


training_data = _digits(train=True)  # oar-port: was datasets.FashionMNIST(root="data", train=True, download=True, transform=ToTensor())

test_data = _digits(train=False)  # oar-port: was datasets.FashionMNIST(root="data", train=False, download=True, transform=ToTensor())

train_dataloader = DataLoader(training_data, batch_size=64)
test_dataloader = DataLoader(test_data, batch_size=64)

class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8*8, 512),  # oar-port: 28*28 images -> 8*8
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork()

learning_rate = 1e-3
batch_size = 64
epochs = 5

# Initialize the loss function
loss_fn = nn.CrossEntropyLoss()

optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    # Set the model to training mode - important for batch normalization and dropout layers
    # Unnecessary in this situation but added for best practices
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        # Compute prediction and loss
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 100 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    # Set the model to evaluation mode - important for batch normalization and dropout layers
    # Unnecessary in this situation but added for best practices
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    # Evaluating the model with torch.no_grad() ensures that no gradients are computed during test mode
    # also serves to reduce unnecessary gradient computations and memory usage for tensors with requires_grad=True
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

epochs = 3  # oar-port: 10 epochs cut to 3
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
