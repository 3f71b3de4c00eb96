# A DCGAN-style generator: latent vectors up-sampled by ConvTranspose2d layers to 32x32 images.
import torch
import torch.nn as nn

nz, ngf, nc = 16, 8, 3


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


torch.manual_seed(0)
netG = Generator()
netG.apply(weights_init)
print(netG)
z = torch.randn(4, nz, 1, 1)
fake = netG(z)
print("fake images:", tuple(fake.shape))
print(f"range [{fake.min().item():.4f}, {fake.max().item():.4f}] mean {fake.mean().item():.4f}")
loss = fake.pow(2).mean()
loss.backward()
print("first layer grad norm:", f"{netG.main[0].weight.grad.norm().item():.5f}")
print(type(fake.grad_fn).__name__, type(fake.grad_fn.next_functions[0][0]).__name__)
