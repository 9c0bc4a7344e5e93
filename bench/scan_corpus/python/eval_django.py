# expect: CWE-95 (a calculator view that evaluates its input)
from django.http import JsonResponse


def calculate(request):
    expression = request.GET.get("expr", "0")
    return JsonResponse({"result": eval(expression)})
