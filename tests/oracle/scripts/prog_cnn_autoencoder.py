# A convolutional autoencoder: strided convs down, ConvTranspose2d up, MSE reconstruction.
import torch
import torch.nn as nn


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(8, 1, 3, stride=2, padding=1, output_padding=1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        code = self.encoder(x)
        return self.decoder(code), code


torch.manual_seed(0)
model = ConvAutoencoder()
images = torch.rand(8, 1, 16, 16)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()
for epoch in range(5):
    recon, code = model(images)
    loss = loss_fn(recon, images)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"Epoch:{epoch + 1}, Loss:{loss.item():.4f}")
print("code shape:", tuple(code.shape), "recon shape:", tuple(recon.shape))
