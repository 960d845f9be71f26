"""Options of the [crypto] group: encryption of stored credentials."""

from oslo_config import cfg

group = cfg.OptGroup('crypto', title='Encryption of stored credentials')

opts = [
    cfg.ListOpt(
        'keys',
        default=[],
        secret=True,
        help='Fernet keys (url-safe base64 of 32 random bytes, as '
        '``python3 -c "from cryptography.fernet import Fernet; '
        'print(Fernet.generate_key().decode())"`` prints) that '
        'encrypt the credentials vnfm stores: VIM credentials '
        'and the secrets of vimConnectionInfo. The first key '
        'encrypts, every key decrypts: to rotate, put a new key '
        'first and drop an old one only once nothing encrypted '
        'with it is left. Every vnfm-api and vnfm-conductor '
        'needs the same keys: they refuse to start without '
        'them. Only vnfm-all (one process on one host) may '
        'leave this empty: a key is then generated into '
        '$state_path/crypto.key (mode 0600) on first use.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [crypto] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
