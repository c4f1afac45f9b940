"""oar-port header.

Source: https://github.com/pytorch/tutorials/blob/main/beginner_source/basics/quickstart_tutorial.py
License: BSD 3-Clause (pytorch/tutorials).
Changes (each marked `# oar-port:` in the code): torchvision's FashionMNIST (28x28, downloaded) is swapped for scikit-learn's digits (8x8,
bundled; first 1437 images train, last 360 test) in TensorDatasets, with ToTensor's scaling
(pixels / 16 -> [0, 1], N x 1 x 8 x 8) done in tensor code; the first Linear takes 8*8 inputs
instead of 28*28; 5 epochs cut to 3.
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


# Download training data from open datasets.
training_data = _digits(train=True)  # oar-port: was datasets.FashionMNIST(root="data", train=True, download=True, transform=ToTensor())

# Download test data from open datasets.
test_data = _digits(train=False)  # oar-port: was datasets.FashionMNIST(root="data", train=False, download=True, transform=ToTensor())

batch_size = 64

# Create data loaders.
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

for X, y in test_dataloader:
    print(f"Shape of X [N, C, H, W]: {X.shape}")
    print(f"Shape of y: {y.shape} {y.dtype}")
    break

# Get cpu, gpu or mps device for training.
device = (
    "cuda"
    if torch.cuda.is_available()
    else "mps"
    if torch.backends.mps.is_available()
    else "cpu"
)
print(f"Using {device} device")

# Define model
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8*8, 512),  # oar-port: 28*28 images -> 8*8
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10)
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork().to(device)
print(model)

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 100 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


epochs = 3  # oar-port: 5 epochs cut to 3
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")

torch.save(model.state_dict(), "model.pth")
print("Saved PyTorch Model State to model.pth")

model = NeuralNetwork().to(device)
model.load_state_dict(torch.load("model.pth", weights_only=True))

classes = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
]

model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to(device)
    pred = model(x)
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
