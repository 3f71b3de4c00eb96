# A DCGAN-style discriminator step: strided convs, LeakyReLU, BatchNorm, BCEWithLogitsLoss.
import torch
import torch.nn as nn

torch.manual_seed(0)
ndf = 8
netD = nn.Sequential(
    nn.Conv2d(3, ndf, 4, 2, 1, bias=False),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
    nn.BatchNorm2d(ndf * 2),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf * 2, 1, 8, 1, 0, bias=False),
    nn.Flatten(),
)
criterion = nn.BCEWithLogitsLoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
real = torch.randn(4, 3, 32, 32)
fake = torch.tanh(torch.randn(4, 3, 32, 32))
for it in range(3):
    netD.zero_grad()
    out_real = netD(real).view(-1)
    err_real = criterion(out_real, torch.ones(4))
    err_real.backward()
    out_fake = netD(fake.detach()).view(-1)
    err_fake = criterion(out_fake, torch.zeros(4))
    err_fake.backward()
    optimizerD.step()
    d_x = torch.sigmoid(out_real).mean().item()
    d_g_z = torch.sigmoid(out_fake).mean().item()
    print(f"[{it}] Loss_D {(err_real + err_fake).item():.4f} D(x) {d_x:.4f} D(G(z)) {d_g_z:.4f}")
print(netD[3].running_mean.shape, netD[3].num_batches_tracked)
