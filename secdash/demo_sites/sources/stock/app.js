// Stock AI: renders the inventory list safely (textContent, no HTML injection).
const items = [
  { name: "Smoke detector", status: "ok" },
  { name: "Water leak sensor", status: "ok" },
  { name: "Fire extinguisher", status: "expires soon" },
];

function renderInventory(list) {
  const target = document.getElementById("items");
  target.replaceChildren();
  for (const item of list) {
    const li = document.createElement("li");
    li.textContent = `${item.name}: ${item.status}`;
    target.appendChild(li);
  }
}

document.addEventListener("DOMContentLoaded", () => renderInventory(items));
