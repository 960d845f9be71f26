"""Heat resource plugin of the local cloud: OS::Nova::Server as a local VM.

Loaded by heat-engine from ``plugin_dirs``; runs in the OpenStack
virtualenv, not vnfm's. The resource keeps Heat's own class, and so its
property schema and template validation; only what would ask Nova, Glance
or Neutron is answered from the local catalogue (``catalogue.json`` in the
cloud's state directory, named by ``VNFM_LOCALCLOUD_STATE``), and the server
is a VM of ``vmhost`` (network namespace, sshd).
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import os
import secrets
import uuid
from pathlib import Path
from typing import Any

import yaml
from heat.common import exception
from heat.engine import constraints
from heat.engine.resources.openstack.nova import server

_HERE = Path(__file__).resolve()
_spec = importlib.util.spec_from_file_location(
    "vnfm_localcloud_vmhost", _HERE.parents[1] / "vmhost.py"
)
assert _spec and _spec.loader
vmhost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vmhost)


def _state() -> Path:
    return Path(os.environ["VNFM_LOCALCLOUD_STATE"])


def catalogue() -> dict[str, Any]:
    """Images, flavours, networks and keypairs of the local cloud."""
    data = json.loads((_state() / "catalogue.json").read_text())
    keys = _state() / "keypairs"
    data["keypairs"] = (
        {p.stem: p.read_text().strip() for p in keys.glob("*.pub")}
        if keys.exists()
        else {}
    )
    return data


def _find(kind: str, value: str) -> dict[str, Any]:
    """An image, flavour or network by name or id."""
    for name, item in catalogue()[kind].items():
        if value in (name, item.get("id")):
            return {"name": name, **item}
    entity = {"images": "Image", "flavors": "Flavor", "networks": "Network"}[
        kind
    ]
    raise exception.EntityNotFound(entity=entity, name=value)


class _Catalogued(constraints.BaseCustomConstraint):
    kind = ""

    def validate_with_client(self, client: Any, value: str) -> None:
        _find(self.kind, value)


class ImageConstraint(_Catalogued):
    kind = "images"


class FlavorConstraint(_Catalogued):
    kind = "flavors"


class NetworkConstraint(_Catalogued):
    kind = "networks"


class KeypairConstraint(constraints.BaseCustomConstraint):
    def validate_with_client(self, client: Any, value: str) -> None:
        if value not in catalogue()["keypairs"]:
            raise exception.EntityNotFound(entity="Key", name=value)


def _allocate(subnet: dict[str, Any], wanted: str | None) -> str:
    """A free address of ``subnet`` (``wanted`` if given and free)."""
    net = ipaddress.ip_network(subnet["cidr"])
    pool = _state() / "ipam"
    pool.mkdir(exist_ok=True)
    hosts = [ipaddress.ip_address(wanted)] if wanted else list(net.hosts())[9:]
    for ip in hosts:
        if ip not in net:
            raise exception.Error(f"{ip} is not in {net}")
        try:
            fd = os.open(pool / str(ip), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            continue
        os.close(fd)
        return str(ip)
    raise exception.Error(f"no free address for {wanted or net}")


def _release(ip: str) -> None:
    try:
        (_state() / "ipam" / ip).unlink()
    except FileNotFoundError:
        pass


def _cloud_config(user_data: str | None) -> dict[str, Any]:
    if not user_data or not user_data.lstrip().startswith("#cloud-config"):
        return {}
    data = yaml.safe_load(user_data)
    return data if isinstance(data, dict) else {}


class LocalServer(server.Server):
    """OS::Nova::Server backed by a local VM."""

    @classmethod
    def is_service_available(cls, context: Any) -> tuple[bool, None]:
        return True, None

    def translation_rules(self, props: Any) -> list[Any]:
        # Only the renames; names are resolved from the catalogue.
        return [
            r for r in super().translation_rules(props) if r.rule == r.REPLACE
        ]

    def validate(self) -> Any:
        # Heat's property and template checks; not Nova's microversions.
        return super(server.Server, self).validate()

    def _vm_dir(self) -> Path:
        return _state() / "vms" / str(self.resource_id)

    def _users(self, image: dict[str, Any]) -> tuple[list[dict], bool]:
        """Users from the image profile, admin_pass, key_name and
        cloud-config; and whether password login is on."""
        default = {
            "name": image["user"],
            "sudo": True,
            "password": image.get("password"),
            "ssh_authorized_keys": [],
        }
        users = {default["name"]: default}
        pwauth = bool(image.get("password"))
        admin_pass = self.properties[self.ADMIN_PASS]
        if admin_pass:
            users["root"] = {"name": "root", "password": admin_pass}
            pwauth = True
        key_name = self.properties[self.KEY_NAME]
        if key_name:
            key = catalogue()["keypairs"][key_name]
            default["ssh_authorized_keys"].append(key)
        cc = _cloud_config(self.properties[self.USER_DATA])
        for entry in cc.get("users") or []:
            if entry == "default" or not isinstance(entry, dict):
                continue
            u = users.setdefault(entry["name"], {"name": entry["name"]})
            u["sudo"] = bool(entry.get("sudo"))
            u["ssh_authorized_keys"] = list(
                entry.get("ssh_authorized_keys") or []
            )
            if entry.get("plain_text_passwd"):
                u["password"] = entry["plain_text_passwd"]
        chpasswd = cc.get("chpasswd") or {}
        for entry in chpasswd.get("users") or []:
            u = users.setdefault(entry["name"], {"name": entry["name"]})
            u["password"] = entry.get("password")
        if "password" in cc:
            default["password"] = cc["password"]
        if "ssh_pwauth" in cc:
            pwauth = bool(cc["ssh_pwauth"])
        return list(users.values()), pwauth

    def _nics(self) -> list[dict[str, Any]]:
        nics = []
        for i, net in enumerate(self.properties[self.NETWORKS] or []):
            if net.get(self.NETWORK_PORT):
                raise exception.Error("ports are not supported yet")
            found = _find("networks", net[self.NETWORK_ID])
            subnet = found["subnets"][0]
            ip = _allocate(subnet, net.get(self.NETWORK_FIXED_IP))
            nics.append(
                {
                    "network": found["name"],
                    "network_id": found["id"],
                    "bridge": found["bridge"],
                    "cidr": subnet["cidr"],
                    "gateway": subnet["gateway_ip"] if i == 0 else None,
                    "ip": ip,
                    "mac": "fa:16:3e:"
                    + ":".join(secrets.token_hex(1) for _ in range(3)),
                }
            )
        if not nics:
            raise exception.Error("a local server needs a network")
        return nics

    def handle_create(self) -> str:
        image = _find("images", self.properties[self.IMAGE])
        flavor = _find("flavors", self.properties[self.FLAVOR])
        users, pwauth = self._users(image)
        vm_id = str(uuid.uuid4())
        self.resource_id_set(vm_id)
        nics = self._nics()
        spec = {
            "id": vm_id.replace("-", ""),
            "server_id": vm_id,
            "hostname": self._server_name(),
            "nics": nics,
            "users": users,
            "ssh_pwauth": pwauth,
            "image": image["name"],
            "flavor": flavor["name"],
        }
        self.data_set("nics", json.dumps(nics))
        if image.get("fail"):
            # An image whose VM cannot start, as a broken image would.
            spec["users"] = [{"name": "root"}]
            spec["hostname"] = ""
        vmhost.start(spec, self._vm_dir())
        return vm_id

    def check_create_complete(self, server_id: str) -> bool:
        state = vmhost.state(self._vm_dir())
        if state == "ERROR":
            raise exception.ResourceInError(
                resource_status="ERROR",
                status_reason="the VM did not start: "
                + vmhost.console_tail(self._vm_dir(), 5),
            )
        return state == "ACTIVE"

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        vmhost.stop(self._vm_dir())
        for nic in json.loads(self.data().get("nics", "[]")):
            _release(nic["ip"])

    def check_delete_complete(self, prg: Any) -> bool:
        return True

    def _addresses(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for nic in json.loads(self.data().get("nics", "[]")):
            out.setdefault(nic["network"], []).append(
                {
                    "version": 4,
                    "addr": nic["ip"],
                    "OS-EXT-IPS:type": "fixed",
                    "OS-EXT-IPS-MAC:mac_addr": nic["mac"],
                }
            )
        return out

    def _show_resource(self) -> dict[str, Any]:
        state = vmhost.state(self._vm_dir()) if self.resource_id else "BUILD"
        return {
            "id": self.resource_id,
            "name": self._server_name(),
            "status": state,
            "addresses": self._addresses(),
            "image": {
                "id": _find("images", self.properties[self.IMAGE])["id"]
            },
            "flavor": {"original_name": self.properties[self.FLAVOR]},
            "key_name": self.properties[self.KEY_NAME],
            "metadata": self.properties[self.METADATA] or {},
            "host_keys": vmhost.host_keys(self._vm_dir()),
        }

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        addresses = self._addresses()
        if name == self.FIRST_ADDRESS:
            first = next(iter(addresses.values()), [])
            return first[0]["addr"] if first else ""
        if name == self.NAME_ATTR:
            return self._server_name()
        if name == self.ADDRESSES:
            return addresses
        if name == self.NETWORKS_ATTR:
            return {n: [a["addr"] for a in v] for n, v in addresses.items()}
        if name in (
            self.ACCESSIPV4,
            self.ACCESSIPV6,
            self.INSTANCE_NAME,
            self.CONSOLE_URLS,
            self.TAGS_ATTR,
        ):
            return None
        return super()._resolve_attribute(name)


def resource_mapping() -> dict[str, type]:
    """What heat-engine registers over its own classes."""
    return {"OS::Nova::Server": LocalServer}


def constraint_mapping() -> dict[str, type]:
    """Constraints answered by the local catalogue instead of the APIs."""
    return {
        "glance.image": ImageConstraint,
        "nova.flavor": FlavorConstraint,
        "neutron.network": NetworkConstraint,
        "nova.keypair": KeypairConstraint,
    }
